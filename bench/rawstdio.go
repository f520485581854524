//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rawStdio is the raw client (rawclient.go) over a child's stdin and
// stdout: one JSON-RPC message per line, each response decoded only as far
// as rawPage reads it.
type rawStdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int64
}

// spawnRaw launches bin as a stdio MCP server and opens a session with it.
func (w *workspace) spawnRaw(ctx context.Context, bin string, args ...string) (*rawStdio, error) {
	cmd := w.command(bin, args...)
	in, out, err := startPiped(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	rs := &rawStdio{cmd: cmd, in: in, out: out}
	if _, err := rs.call(ctx, "initialize", rawInitialize()); err != nil {
		rs.close()
		return nil, err
	}
	if err := rs.send(&jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		rs.close()
		return nil, err
	}
	return rs, nil
}

// startPiped starts cmd with a pipe to its stdin and a buffered one from
// its stdout, as a stdio MCP server is spoken to.
func startPiped(cmd *exec.Cmd) (io.WriteCloser, *bufio.Reader, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return in, bufio.NewReaderSize(out, 64<<10), nil
}

// listAll lists every tool, following nextCursor, and says how many.
func (rs *rawStdio) listAll(ctx context.Context) (int, error) { return listPages(ctx, rs.call) }

// call sends one request and reads lines until its response. When ctx
// ends first, the child is killed, which ends the read.
func (rs *rawStdio) call(ctx context.Context, method string, params any) (*rawPage, error) {
	stop := context.AfterFunc(ctx, func() { killGroup(rs.cmd.Process) })
	defer stop()
	rs.id++
	req, err := rawRequest(rs.id, method, params)
	if err != nil {
		return nil, err
	}
	if err := rs.send(req); err != nil {
		return nil, err
	}
	for {
		line, err := rs.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, errors.Join(ctx.Err(), err))
		}
		var page rawPage
		if err := json.Unmarshal(line, &page); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if !page.isResponse() {
			continue // a notification or a request of the server's
		}
		if page.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, page.Error)
		}
		return &page, nil
	}
}

func (rs *rawStdio) send(msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	_, err = rs.in.Write(append(b, '\n'))
	return err
}

// close ends the session as a stdio client does: stdin closed, then the
// child is waited for (killed after stopGrace).
func (rs *rawStdio) close() {
	_ = rs.in.Close()
	done := make(chan struct{})
	go func() {
		_ = rs.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		killGroup(rs.cmd.Process)
		<-done
	}
}

// rawDirectStdio is the direct path of the stdio row with raw clients:
// n children of bin spawned at once, each handshaken and listed.
func rawDirectStdio(ctx context.Context, w *workspace, n int, row *faninRow, bin string, args ...string) error {
	return rawDirectOf(ctx, n, row, func(int) (*rawStdio, error) { return w.spawnRaw(ctx, bin, args...) })
}
