package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// The daemon is the face's Manager: mcp_manage and the admin API change
// servers through Change.
var _ gateway.Manager = (*Daemon)(nil)

// AddServer connects s (unless o.NoVerify) and records it in weft.toml, as
// one change: a server that cannot connect is not written, and a write that
// fails stops it again.
func (d *Daemon) AddServer(ctx context.Context, s *config.Server, o gateway.ChangeOptions) (gateway.ChangeResult, error) {
	s = s.Clone()
	s.Source = d.path
	if s.Type == "" {
		s.Type = s.Transport()
	}
	if s.TimeoutMS == 0 {
		s.TimeoutMS = config.DefaultTimeoutMS
	}
	e := Edit{IfMatch: o.IfMatch, File: func(data []byte) ([]byte, error) { return config.AddServerTo(data, d.path, s) }}
	if !o.NoVerify {
		e.Verify = []string{s.Name}
	}
	return d.changeResult(ctx, e, s.Name)
}

// EnableServer starts a configured server, recording enabled = true when
// weft.toml disabled it. An entry from a .mcp.json, which weft does not
// edit, is started without being recorded.
func (d *Daemon) EnableServer(ctx context.Context, name string) (gateway.ChangeResult, error) {
	s, ok := d.Config().Servers[name]
	if !ok {
		return gateway.ChangeResult{}, fmt.Errorf("server %q %w in %s", name, config.ErrServerNotFound, d.path)
	}
	if s.Source != d.path || s.IsEnabled() {
		enabled := s.Clone()
		t := true
		enabled.Enabled = &t
		st, err := d.hub.Add(ctx, enabled)
		if err != nil && !errors.Is(err, hub.ErrExists) {
			_ = d.hub.Remove(context.WithoutCancel(ctx), name)
			return gateway.ChangeResult{}, &ConnectError{Server: name, Err: err}
		}
		return gateway.ChangeResult{Status: st, Hash: d.ConfigHash()}, nil
	}
	return d.changeResult(ctx, Edit{Verify: []string{name}, File: func(data []byte) ([]byte, error) {
		return config.SetServerEnabledIn(data, d.path, name, true)
	}}, name)
}

// RemoveServer deletes server name from weft.toml, then drains it.
func (d *Daemon) RemoveServer(ctx context.Context, name string, o gateway.ChangeOptions) (gateway.ChangeResult, error) {
	res, err := d.Change(ctx, Edit{IfMatch: o.IfMatch, File: func(data []byte) ([]byte, error) {
		return config.RemoveServerFrom(data, d.path, name)
	}})
	if err != nil {
		return gateway.ChangeResult{}, err
	}
	return gateway.ChangeResult{Hash: res.Hash}, nil
}

func (d *Daemon) changeResult(ctx context.Context, e Edit, name string) (gateway.ChangeResult, error) {
	res, err := d.Change(ctx, e)
	if err != nil {
		return gateway.ChangeResult{}, err
	}
	st, _ := d.hub.Get(name)
	return gateway.ChangeResult{Status: st, Hash: res.Hash}, nil
}

// Is makes a ConnectError match gateway.ErrNotConnected, which the face
// maps to its answer.
func (e *ConnectError) Is(target error) bool { return target == gateway.ErrNotConnected }
