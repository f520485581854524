package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigLineBytes is the size of the line bigline mode writes.
const bigLineBytes = 64 << 20

// floodBatch notifications are sent per millisecond in flood mode: far more
// than any client wants, without spinning a core on the server side alone.
const floodBatch = 50

type textIn struct {
	Text string `json:"text,omitempty" jsonschema:"text to echo"`
}

type textOut struct {
	Text string `json:"text"`
}

// newServer builds the server with the tools of mode o.mode.
func newServer(o options, out *stdout) *mcp.Server {
	opts := &mcp.ServerOptions{}
	if o.mode == "flood" {
		// Legacy sessions get logging/setLevel from weft, so that the
		// server's log messages are really sent.
		opts.SupportedProtocolVersions = []string{"2025-11-25"}
		opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) { go flood(req.Session) }
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "misbehave-" + o.mode, Version: "0.0.1"}, opts)
	var calls atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"}, func(ctx context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, textOut, error) {
		if err := misbehave(o, out, calls.Add(1)); err != nil {
			return nil, textOut{}, err
		}
		return nil, textOut{Text: "echo:" + in.Text}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleep for --delay (or until --release-file exists), or until cancelled"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ textIn) (*mcp.CallToolResult, textOut, error) {
		// In bigline mode slow only sleeps: its calls are the bystanders
		// whose connection echo's oversized answer breaks.
		if o.mode == "bigline" {
			calls.Add(1)
		} else if err := misbehave(o, out, calls.Add(1)); err != nil {
			return nil, textOut{}, err
		}
		ctx, stop := context.WithCancel(ctx) // ends the release check
		defer stop()
		select {
		case <-time.After(o.delay):
			return nil, textOut{Text: "slept " + o.delay.String()}, nil
		case <-released(ctx, o.releaseFile):
			return nil, textOut{Text: "released"}, nil
		case <-ctx.Done():
			return nil, textOut{}, ctx.Err()
		}
	})
	if o.counterFile != "" {
		n := countStart(o.counterFile)
		name := fmt.Sprintf("gen%d", n)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Names the start count of this process"}, func(context.Context, *mcp.CallToolRequest, textIn) (*mcp.CallToolResult, textOut, error) {
			return nil, textOut{Text: name}, nil
		})
	}
	return s
}

// misbehave does what mode asks of call number n before it is answered.
func misbehave(o options, out *stdout, n int64) error {
	switch o.mode {
	case "hang":
		// Ignore cancellation too: only the client's own deadline helps.
		select {}
	case "crash":
		if n > int64(o.crashAfter) {
			log.Printf("crashing in call %d", n)
			os.Exit(3)
		}
	case "bigline":
		return out.bigLine(bigLineBytes)
	}
	return nil
}

// countStart increments the number in path and returns it (1 on the first
// start). A missing or unreadable file counts as zero.
func countStart(path string) int {
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	if err := os.WriteFile(path, []byte(strconv.Itoa(n)), 0o600); err != nil {
		log.Printf("write counter file: %v", err)
	}
	return n
}

// flood sends progress and log notifications until the session ends.
func flood(ss *mcp.ServerSession) {
	ctx := context.Background()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		for j := 0; j < floodBatch; j++ {
			p := &mcp.ProgressNotificationParams{ProgressToken: "flood", Progress: float64(i), Message: "flood"}
			if err := ss.NotifyProgress(ctx, p); err != nil {
				return
			}
			if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "flood"}); err != nil {
				return
			}
		}
		<-tick.C
	}
}

// released closes once path exists (never if path is empty), checking every
// 10 ms until ctx ends: a test holds slow calls in flight for as long as it
// needs, then lets them all answer at once. Another process creates the
// file, so there is nothing to wait on but its existence.
func released(ctx context.Context, path string) <-chan struct{} {
	ch := make(chan struct{})
	if path == "" {
		return ch
	}
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := os.Stat(path); err == nil {
				close(ch)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return ch
}
