package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
)

// LoginFunc runs the OAuth login of server now, sending the user to the
// authorization URL through open, and returns once the token is stored.
type LoginFunc func(ctx context.Context, server string, open func(ctx context.Context, url string) error) error

// loginWait bounds how long a call waits for its server to come back
// after the login (the hub notices a new login within a second or two).
const loginWait = 15 * time.Second

// loginThroughClient handles a call that failed because its server needs a
// login, for a client that can open URLs (URL-mode elicitation): weft asks
// it to open the authorization page and waits for the login and for the
// server to come back. It reports whether the call should be made again;
// otherwise err (or why the login failed) stands.
func (g *Gateway) loginThroughClient(ctx context.Context, ss *mcp.ServerSession, tool string, err error) (bool, error) {
	var nl *oauth.NeedsLoginError
	peer, asked := askerFrom(ctx)
	if g.opts.Login == nil || !errors.As(err, &nl) || !(canOpenURLs(ss) || asked && peer.caps.Elicitation != nil && peer.caps.Elicitation.URL != nil) {
		return false, err
	}
	elicit := ss.Elicit
	if asked {
		elicit = peer.Elicit // in the client's revision (an input-required result on 2026-07-28)
	}
	open := func(ctx context.Context, url string) error {
		res, err := elicit(ctx, &mcp.ElicitParams{
			Mode:          "url",
			Message:       fmt.Sprintf("%s needs a login: open this page to authorize weft.", nl.Server),
			URL:           url,
			ElicitationID: rand.Text(),
		})
		if err != nil {
			return err
		}
		if res.Action != "accept" {
			return fmt.Errorf("the user chose %s", res.Action)
		}
		return nil
	}
	if lerr := g.opts.Login(ctx, nl.Server, open); lerr != nil {
		return false, fmt.Errorf("%w (the login through the client failed: %v)", err, lerr)
	}
	if werr := g.awaitActive(ctx, nl.Server, tool); werr != nil {
		return false, werr
	}
	return true, nil
}

// canOpenURLs reports whether the client declared URL-mode elicitation.
func canOpenURLs(ss *mcp.ServerSession) bool {
	if ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil {
		return false
	}
	e := ss.InitializeParams().Capabilities.Elicitation
	return e != nil && e.URL != nil
}

// awaitActive waits until the hub has the server active again, with the
// tool in its catalog.
func (g *Gateway) awaitActive(ctx context.Context, server, tool string) error {
	ctx, cancel := context.WithTimeout(ctx, loginWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err := g.hub.Get(server); err == nil && st.Status == hub.StatusActive {
			if _, ok := g.hub.Catalog().Tool(tool); ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: logged in, but the server did not come back within %v; see `weft mcp get %s`", server, loginWait, server)
		case <-tick.C:
		}
	}
}
