package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
)

// errNotRunning reports that no weft answered at an address (it stopped
// without removing its entry, or has not started listening): the caller
// tries the next one or takes the file path.
var errNotRunning = errors.New("no weft answers there")

// adminClient talks to a running weft's admin API.
type adminClient struct {
	token string
	inst  daemon.Instance
}

func newAdminClient(cfg *config.Config, inst daemon.Instance) adminClient {
	return adminClient{token: daemon.AdminToken(cfg), inst: inst}
}

// do sends a request with body (JSON, when not nil) and decodes a 2xx answer
// into out. A refused connection wraps errNotRunning; an error answer
// becomes its one-line message.
func (c adminClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.inst.Addr+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return fmt.Errorf("%s: %w", c.inst.Addr, errNotRunning)
		}
		return fmt.Errorf("the weft at %s (pid %d): %w", c.inst.Addr, c.inst.PID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var ae gateway.AdminError
		if json.NewDecoder(resp.Body).Decode(&ae) == nil && ae.Error != "" {
			return errors.New(ae.Error)
		}
		return fmt.Errorf("the weft at %s answered %s", c.inst.Addr, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// getJSON reads a status endpoint, briefly: a weft that does not answer in
// two seconds is treated as gone.
func (c adminClient) getJSON(ctx context.Context, path string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return c.do(ctx, http.MethodGet, path, nil, out)
}

// onLive runs f against the first running weft on cfg that answers; ok is
// false when none does (f then never saw a live weft).
func (a *app) onLive(cfg *config.Config, f func(adminClient) error) (ok bool, err error) {
	for _, inst := range daemon.LiveInstances(cfg.Path) {
		err := f(newAdminClient(cfg, inst))
		if errors.Is(err, errNotRunning) {
			continue
		}
		return true, err
	}
	return false, nil
}
