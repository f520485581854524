package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// serveFace runs the HTTP face of a gateway over an empty hub on a
// loopback port and returns its address.
func serveFace(t *testing.T, o HTTPOptions) (*Gateway, string, *connCap) {
	t.Helper()
	return serveFaceOf(t, Options{Version: "test"}, o)
}

// serveFaceOf is serveFace for a face with opts.
func serveFaceOf(t *testing.T, opts Options, o HTTPOptions) (*Gateway, string, *connCap) {
	t.Helper()
	h := hub.New(hub.Options{Reserved: BuiltinNames})
	g := New(h, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.Listen = ln.Addr().String()
	srv, caps := newHTTPServer(g.HandlerWith(o), o)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
		<-done
		for ss := range g.server.Sessions() {
			_ = ss.Close()
		}
		h.Close(context.Background())
	})
	return g, ln.Addr().String(), caps
}

// rawRequest sends one HTTP request on a fresh connection and returns the
// response and the connection.
func rawRequest(t *testing.T, addr, req string) (*http.Response, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res, c
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func post(host, token, body string) string {
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", host, auth, len(body), body)
}

// TestRefusalClosesTheConnection: a 401 (and the other refusals) leave no
// idle keep-alive connection behind.
func TestRefusalClosesTheConnection(t *testing.T) {
	_, addr, _ := serveFace(t, HTTPOptions{Token: "secret"})
	res, c := rawRequest(t, addr, post(addr, "", initBody))
	defer c.Close()
	if res.StatusCode != http.StatusUnauthorized || !res.Close {
		t.Fatalf("status %d, close %v; want 401 with Connection: close", res.StatusCode, res.Close)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("connection still open after 401 (read %d bytes)", n)
	}
}

// TestIdleConnectionsDoNotLockOutAClient reproduces the exhaustion attack
// at a small scale: an unauthenticated client holds many connections open
// (some answered 401, most silent); an authenticated client still gets
// in, and weft holds no more connections than its cap.
func TestIdleConnectionsDoNotLockOutAClient(t *testing.T) {
	const limit, attackers = 16, 80
	_, addr, caps := serveFace(t, HTTPOptions{Token: "secret", MaxConnections: limit})
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range attackers {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if i%4 == 0 {
			_, _ = io.WriteString(c, post(addr, "", initBody)) // answered 401, then closed by weft
		}
	}
	res, c := rawRequest(t, addr, post(addr, "secret", initBody))
	c.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("authenticated client got %d, want 200", res.StatusCode)
	}
	if n := caps.open(); n > limit+1 {
		t.Fatalf("weft holds %d connections, want at most the cap %d", n, limit)
	}
}

// TestSlowBodyIsCut: a client that sends headers and then trickles (here:
// stops sending) its body is answered within the body timeout instead of
// holding the connection.
func TestSlowBodyIsCut(t *testing.T) {
	_, addr, _ := serveFace(t, HTTPOptions{BodyTimeout: 200 * time.Millisecond})
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr)
	res, c := rawRequest(t, addr, head)
	defer c.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400 once the body timeout passed", res.StatusCode)
	}
}

// TestSessionsStayUnderTheCap opens many sessions; the oldest idle ones
// are closed so that the count stays at the cap, and the newest works.
func TestSessionsStayUnderTheCap(t *testing.T) {
	const limit = 3
	g, addr, _ := serveFace(t, HTTPOptions{MaxSessions: limit})
	var last string
	for range 12 {
		res, c := rawRequest(t, addr, post(addr, "", initBody))
		c.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("initialize: status %d", res.StatusCode)
		}
		last = res.Header.Get(sessionHeader)
	}
	n := 0
	for range g.server.Sessions() {
		n++
	}
	if n > limit {
		t.Fatalf("%d sessions open, want at most %d", n, limit)
	}
	if !strings.Contains(fmt.Sprint(sessionIDs(g)), last) {
		t.Fatalf("the newest session %s was evicted; open: %v", last, sessionIDs(g))
	}
}

func sessionIDs(g *Gateway) []string {
	var ids []string
	for ss := range g.server.Sessions() {
		ids = append(ids, ss.ID())
	}
	return ids
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}

// TestConnCapClosesSilentBeforeIdle checks the eviction order past the cap:
// a connection that never sent a request goes before an idle keep-alive one
// (whose client may be reusing it), and an active one is never chosen.
func TestConnCapClosesSilentBeforeIdle(t *testing.T) {
	pipe := func() net.Conn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a
	}
	c := newConnCap(3)
	active, idle, silent := pipe(), pipe(), pipe()
	c.track(active, http.StateActive)
	c.track(idle, http.StateIdle)
	c.track(silent, http.StateNew)
	c.track(pipe(), http.StateNew)
	if _, ok := c.conns[silent]; ok {
		t.Fatal("the silent connection was kept, want it closed first")
	}
	if _, ok := c.conns[idle]; !ok {
		t.Fatal("the idle connection was closed while a silent one was there")
	}
	c.track(pipe(), http.StateNew) // the newest silent one goes before idle
	c.track(pipe(), http.StateActive)
	if _, ok := c.conns[active]; !ok {
		t.Fatal("an active connection was closed")
	}
}

// TestShutdownClosesSilentConnections: a connection that never sent a
// request (an HTTP client's spare one, a browser's preconnect) does not hold
// Shutdown, which on its own waits 5 s for it; Shutdown closes it and
// returns well within a 2 s deadline.
func TestShutdownClosesSilentConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newHTTPServer(http.NotFoundHandler(), HTTPOptions{})
	accepted := make(chan struct{}, 1)
	track := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		track(c, s)
		if s == http.StateNew {
			accepted <- struct{}{}
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	<-accepted
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a silent connection open: %v, want it closed at once", err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the silent connection after Shutdown: read %d bytes, %v; want EOF", n, err)
	}
}
