package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelWatch records the notifications/cancelled a server receives, and
// signals each call of block it takes; with hang, such a call is never
// answered, not even with its headers (the POST is still being sent).
type cancelWatch struct {
	hang    bool
	arrived chan struct{}
	mu      sync.Mutex
	got     []mcp.CancelledParams
	first   chan struct{}
	once    sync.Once
}

func newCancelWatch(hang bool) *cancelWatch {
	return &cancelWatch{hang: hang, arrived: make(chan struct{}, 1), first: make(chan struct{})}
}

func (w *cancelWatch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string              `json:"method"`
			Params mcp.CancelledParams `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		switch msg.Method {
		case "notifications/cancelled":
			w.mu.Lock()
			w.got = append(w.got, msg.Params)
			w.mu.Unlock()
			w.once.Do(func() { close(w.first) })
		case "tools/call":
			if !bytes.Contains(body, []byte(`"block"`)) {
				break
			}
			select {
			case w.arrived <- struct{}{}:
			default:
			}
			if w.hang {
				<-r.Context().Done()
				return
			}
		}
		next.ServeHTTP(rw, r)
	})
}

func (w *cancelWatch) cancels() []mcp.CancelledParams {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]mcp.CancelledParams(nil), w.got...)
}

// TestPostedCallGivenUpTellsTheServerOnce: a posted call given up, by its
// client's cancel or by a deadline (the call's own, the caller's), while
// its POST waits for its headers or while its stream is open, returns the
// error of what ended it (a deadline never reads as a cancellation) and
// sends one notifications/cancelled for its id, whose reason says the same.
func TestPostedCallGivenUpTellsTheServerOnce(t *testing.T) {
	for _, hang := range []bool{true, false} {
		for _, tc := range []struct {
			name string
			call func(c *Conn, arrived <-chan struct{}) error
			want error
		}{
			{"client cancel", func(c *Conn, arrived <-chan struct{}) error {
				ctx, cancel := context.WithCancel(context.Background())
				go func() { <-arrived; cancel() }()
				_, err := c.CallToolRaw(ctx, &fakePeer{}, "block", json.RawMessage(`{}`), nil)
				return err
			}, context.Canceled},
			{"call's deadline", func(c *Conn, _ <-chan struct{}) error {
				_, err := c.CallToolRawUntil(context.Background(), time.Now().Add(100*time.Millisecond), &fakePeer{}, "block", json.RawMessage(`{}`), nil)
				return err
			}, context.DeadlineExceeded},
			{"caller's deadline", func(c *Conn, _ <-chan struct{}) error {
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				_, err := c.CallToolRawUntil(ctx, time.Now().Add(time.Hour), &fakePeer{}, "block", json.RawMessage(`{}`), nil)
				return err
			}, context.DeadlineExceeded},
		} {
			name := tc.name + "/streaming"
			if hang {
				name = tc.name + "/sending"
			}
			t.Run(name, func(t *testing.T) {
				release := make(chan struct{})
				w := newCancelWatch(hang)
				c := dial(t, serveHTTPOpts(t, testServerReleasing(release), nil, w.wrap), Options{})
				t.Cleanup(func() { close(release) }) // runs before the server's Close
				if err := tc.call(c, w.arrived); !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				select {
				case <-w.first:
				case <-time.After(10 * time.Second):
					t.Fatal("no notifications/cancelled reached the server")
				}
				// A call after it: its POST comes after any second
				// notifications/cancelled the first call's end made.
				if _, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{"text":"x"}`), nil); err != nil {
					t.Fatal(err)
				}
				got := w.cancels()
				if len(got) != 1 {
					t.Fatalf("%d notifications/cancelled, want 1: %+v", len(got), got)
				}
				if id, _ := got[0].RequestID.(string); !strings.HasPrefix(id, rawIDPrefix) {
					t.Errorf("notifications/cancelled for %v, want weft's id", got[0].RequestID)
				}
				if got[0].Reason != tc.want.Error() {
					t.Errorf("reason %q, want %q", got[0].Reason, tc.want.Error())
				}
			})
		}
	}
}

// TestPostedCallErrorIsNotReadAsACancel: an upstream's error answered on
// an event stream is the call's error, however fast the stream's finish,
// which ends the call's context once it has its answer (httpfinish.go),
// runs after it: never context.Canceled, and no notifications/cancelled.
func TestPostedCallErrorIsNotReadAsACancel(t *testing.T) {
	w := newCancelWatch(false)
	c := dial(t, serveHTTPOpts(t, testServer(), nil, w.wrap), Options{})
	for range 300 {
		_, err := c.CallToolRaw(context.Background(), &fakePeer{}, "missing", json.RawMessage(`{}`), nil)
		if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `unknown tool "missing"`) {
			t.Fatalf("err = %v, want the upstream's unknown tool", err)
		}
	}
	if got := w.cancels(); len(got) != 0 {
		t.Errorf("%d notifications/cancelled for answered calls: %+v", len(got), got)
	}
}

// TestRawListCancelledWhileSending: weft's own tools/list, posted without
// an owned call, ends with its caller's cancel while its POST waits for
// its headers: the caller's error, not go-sdk's list as a fallback, and
// the upstream told once.
func TestRawListCancelledWhileSending(t *testing.T) {
	arrived := make(chan struct{}, 1)
	var armed atomic.Bool // the dial's own list is answered
	w := newCancelWatch(false)
	hanging := func(next http.Handler) http.Handler {
		return w.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if armed.Load() && bytes.Contains(body, []byte(`"tools/list"`)) && bytes.Contains(body, []byte(`"id":"`+rawIDPrefix)) {
				arrived <- struct{}{}
				<-r.Context().Done()
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(rw, r)
		}))
	}
	c := dial(t, serveHTTPOpts(t, testServer(), nil, hanging), Options{})
	armed.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	if _, raw, err := c.listToolsRaw(ctx); !errors.Is(err, context.Canceled) || raw {
		t.Fatalf("listToolsRaw = raw %v, %v; want the caller's cancel", raw, err)
	}
	select {
	case <-w.first:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/cancelled reached the server")
	}
	if got := w.cancels(); len(got) != 1 || got[0].Reason != context.Canceled.Error() {
		t.Errorf("notifications/cancelled = %+v, want one for the cancel", got)
	}
}
