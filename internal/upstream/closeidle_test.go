package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// A discarded attempt's poster closes its pool's idle connections at once,
// with or without an OAuth login on the entry: weft's own transports wrap
// the pool and must pass CloseIdleConnections on, or the call does nothing
// and the connections stay open until the pool's idle timeout (90 s).
func TestPosterClosesIdleConnections(t *testing.T) {
	for name, opts := range map[string]Options{
		"no login":    {},
		"OAuth login": {OAuth: func(*config.Server) auth.OAuthHandler { return &grantingHandler{token: "good"} }},
	} {
		t.Run(name, func(t *testing.T) {
			closed := make(chan struct{}, 4)
			ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "{}")
			}))
			ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
				if state == http.StateClosed {
					closed <- struct{}{}
				}
			}
			ts.Start()
			defer ts.Close()
			c := newConn(&config.Server{Name: "up", Type: config.TransportHTTP, Target: ts.URL}, opts)
			if _, _, err := c.transport(newNoteOrder()); err != nil {
				t.Fatal(err)
			}
			resp, err := c.poster.client.Post(ts.URL, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close() // the connection goes back to the pool, idle
			c.poster.closeIdle(nil)
			// A bound for a broken build, far below the idle timeout; it
			// measures nothing.
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the poster's idle connection is still open")
			}
		})
	}
}

// Closing an HTTP connection closes its pool's idle connections too,
// instead of leaving them (and their reading goroutines) until the pool's
// idle timeout.
func TestCloseEndsThePoolsIdleConnections(t *testing.T) {
	conns := newConnCounter()
	ts := statelessServer(conns.track)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, &config.Server{Name: "up", Type: config.TransportHTTP, Target: ts.URL}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conns.forget() // the handshake's own closed connections
	c.Close(context.Background())
	// A bound for a broken build, far below the idle timeout; it measures
	// nothing.
	select {
	case <-conns.allClosed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d connections to the server still open after Close", conns.open())
	}
}

// statelessServer is a stateless go-sdk server whose connections'
// states connState sees.
func statelessServer(connState func(net.Conn, http.ConnState)) *httptest.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	ts.Config.ConnState = connState
	ts.Start()
	return ts
}

// A dial that fails (here: every revision's handshake refused) leaves no
// idle connection open to the server.
func TestFailedDialLeavesNoIdleConnection(t *testing.T) {
	conns := newConnCounter()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unsupported protocol version"}}`, req.ID)
	}))
	ts.Config.ConnState = conns.track
	ts.Start()
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c, err := Dial(ctx, &config.Server{Name: "up", Type: config.TransportHTTP, Target: ts.URL}, Options{}); err == nil {
		c.Close(context.Background())
		t.Fatal("a server that refuses every handshake was connected")
	}
	// A bound for a broken build, far below the idle timeout; it measures
	// nothing.
	select {
	case <-conns.allClosed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d connections to the server still open after the failed dial", conns.open())
	}
}

// connCounter counts a test server's open connections and reports each
// time the last one closes.
type connCounter struct {
	mu        sync.Mutex
	n         int
	allClosed chan struct{}
}

func newConnCounter() *connCounter { return &connCounter{allClosed: make(chan struct{}, 16)} }

// track is the server's ConnState hook.
func (c *connCounter) track(_ net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.n++
	case http.StateClosed, http.StateHijacked:
		if c.n--; c.n == 0 {
			c.allClosed <- struct{}{}
		}
	}
}

// forget drops the reports so far.
func (c *connCounter) forget() {
	for len(c.allClosed) > 0 {
		<-c.allClosed
	}
}

func (c *connCounter) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
