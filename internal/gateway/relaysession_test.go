package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// rawFace serves a face with opts and o and the HTTP upstream "alpha",
// for tests that speak Streamable HTTP by hand.
func rawFace(t *testing.T, opts Options, o HTTPOptions) string {
	t.Helper()
	up := testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "alpha"}))
	opts.Version = "test"
	var g *Gateway
	var addr string
	if o.Listen == "" {
		g, addr, _ = serveFaceOf(t, opts, o)
	} else {
		g, addr = serveFaceAt(t, opts, o)
	}
	if res := g.hub.Apply(context.Background(), map[string]*config.Server{
		"alpha": {Name: "alpha", Type: config.TransportHTTP, Target: up},
	}); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	return addr
}

// rawPost sends body to the face's endpoint as the session sid ("" for
// none) with the bearer token (if any) and the headers a legacy client
// sends, plus extra; it returns the response with its body read.
func rawPost(t *testing.T, addr, sid, token, body string, extra ...string) (*http.Response, string) {
	t.Helper()
	resp, data, err := rawDo(addr, sid, token, body, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// rawDo is rawPost for a goroutine, returning the error.
func rawDo(addr, sid, token, body string, extra ...string) (*http.Response, string, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+Endpoint, strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(sessionHeader, sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i] == "Host" {
			req.Host = extra[i+1]
			continue
		}
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, string(data), err
}

// rawSession opens an initialized 2025-11-25 session with token.
func rawSession(t *testing.T, addr, token string) string {
	t.Helper()
	resp, body := rawPost(t, addr, "", token, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get(sessionHeader)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawPost(t, addr, sid, token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return sid
}

// Requests the relay answers itself once go-sdk has seen the session.
const (
	rawEcho   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"alpha__echo","arguments":{"text":"hi"}}}`
	rawList   = `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
	rawCancel = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`
)

// TestRelayRefusesADuplicateInFlightID: go-sdk refuses a call whose id is
// in flight on the session (400, invalid request); the relay must too, and
// a cancellation still reaches the first call.
func TestRelayRefusesADuplicateInFlightID(t *testing.T) {
	mw, started := callStarts()
	addr := rawFace(t, Options{Middleware: []mcp.Middleware{mw}}, HTTPOptions{})
	sid := rawSession(t, addr, "")
	first := make(chan string, 1)
	go func() {
		_, body, err := rawDo(addr, sid, "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"alpha__sleep","arguments":{"ms":60000}}}`)
		if err != nil {
			body = err.Error()
		}
		first <- body
	}()
	<-started
	resp, body := rawPost(t, addr, sid, "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"alpha__echo","arguments":{"text":"again"}}}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "duplicate in-flight request ID") || strings.Contains(body, "alpha:again") {
		t.Fatalf("a second call with id 7 in flight: %d %s, want 400 duplicate", resp.StatusCode, body)
	}
	select {
	case <-started:
		t.Fatal("the duplicate call was made")
	default:
	}
	if resp, body := rawPost(t, addr, sid, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	select {
	case body := <-first:
		if strings.Contains(body, "slept") {
			t.Fatalf("the cancelled call finished: %s", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancellation did not reach the first call")
	}
}

// TestRelayRefusesLastEventIDOnAPost: go-sdk refuses a POST carrying
// Last-Event-ID (400); so must the relay.
func TestRelayRefusesLastEventIDOnAPost(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{})
	sid := rawSession(t, addr, "")
	for range 2 {
		if resp, body := rawPost(t, addr, sid, "", rawEcho, "Last-Event-ID", "x_1"); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a call with Last-Event-ID: %d %s, want 400", resp.StatusCode, body)
		}
	}
}

// serveFaceAt is serveFaceOf for a face that believes it is bound to
// o.Listen while it listens on a loopback port.
func serveFaceAt(t *testing.T, opts Options, o HTTPOptions) (*Gateway, string) {
	t.Helper()
	h := hub.New(hub.Options{Reserved: BuiltinNames})
	g := New(h, opts)
	srv := httptest.NewServer(g.HandlerWith(o))
	t.Cleanup(func() {
		srv.Close()
		for ss := range g.server.Sessions() {
			_ = ss.Close()
		}
		h.Close(context.Background())
	})
	return g, srv.Listener.Addr().String()
}

// TestRelayRefusesAReboundHost: go-sdk refuses a request that reached a
// loopback address naming a host that is not loopback (DNS rebinding,
// 403), which weft's own guard lets through when bound to every
// interface; so must the relay.
func TestRelayRefusesAReboundHost(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{Listen: "0.0.0.0:7000", Token: "tok"})
	sid := rawSession(t, addr, "tok")
	if resp, body := rawPost(t, addr, sid, "tok", rawEcho); resp.StatusCode != http.StatusOK {
		t.Fatalf("a call naming the loopback address: %d %s", resp.StatusCode, body)
	}
	// go-sdk reads "localhost" and loopback addresses only as loopback
	// names, where weft's guard also takes other spellings.
	for _, host := range []string{"10.9.8.7:7000", "foo.localhost:7000", "LOCALHOST:7000", "localhost.:7000"} {
		for _, body := range []string{rawEcho, rawEcho, rawList, rawList, rawCancel} {
			if resp, got := rawPost(t, addr, sid, "tok", body, "Host", host); resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s naming %s: %d %s, want 403", body, host, resp.StatusCode, got)
			}
		}
	}
}

// callStarts is a face middleware that says on started when a tools/call
// reaches the face's chain.
func callStarts() (mcp.Middleware, chan struct{}) {
	started := make(chan struct{}, 1)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				started <- struct{}{}
			}
			return next(ctx, method, req)
		}
	}, started
}

// usersAuth is a face auth whose bearer token is the user's name.
func usersAuth(next http.Handler) http.Handler {
	return auth.RequireBearerToken(func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(next)
}

// TestRelayRefusesAnotherUsersSession: go-sdk binds a session to the user
// whose token opened it and refuses it to any other (403); the relay must
// not answer another user's request of it, whether a call, a list or a
// cancellation.
func TestRelayRefusesAnotherUsersSession(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{Auth: usersAuth})
	sid := rawSession(t, addr, "alice")
	if resp, body := rawPost(t, addr, sid, "alice", rawEcho); resp.StatusCode != http.StatusOK || !strings.Contains(body, "alpha:hi") {
		t.Fatalf("alice's own call: %d %s", resp.StatusCode, body)
	}
	for _, body := range []string{rawEcho, rawList, rawCancel} {
		for range 2 { // the second would be answered from a kept page
			if resp, got := rawPost(t, addr, sid, "bob", body); resp.StatusCode != http.StatusForbidden {
				t.Fatalf("bob's %s in alice's session: %d %s, want 403", body, resp.StatusCode, got)
			}
		}
	}
}

// TestRelayedCallKeepsItsSessionAlive: go-sdk does not idle out a session
// while one of its calls runs; nor may a relayed call, which go-sdk does
// not see, let it.
func TestRelayedCallKeepsItsSessionAlive(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{SessionIdleTimeout: time.Second})
	sid := rawSession(t, addr, "")
	resp, body := rawPost(t, addr, sid, "", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"alpha__sleep","arguments":{"ms":2500}}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "slept") {
		t.Fatalf("a call longer than the idle timeout: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawPost(t, addr, sid, "", rawEcho); resp.StatusCode != http.StatusOK || !strings.Contains(body, "alpha:hi") {
		t.Fatalf("the session after a long call: %d %s, want it alive", resp.StatusCode, body)
	}
}

// TestClosingASessionEndsItsRelayedCalls: go-sdk cancels a session's calls
// when the session ends (here by DELETE); so must the relay, whose call's
// POST then gets the answer the spec gives an ended session's request.
func TestClosingASessionEndsItsRelayedCalls(t *testing.T) {
	mw, started := callStarts()
	addr := rawFace(t, Options{Middleware: []mcp.Middleware{mw}}, HTTPOptions{})
	sid := rawSession(t, addr, "")
	type answer struct {
		code int
		body string
	}
	call := make(chan answer, 1)
	go func() {
		resp, body, err := rawDo(addr, sid, "", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"alpha__sleep","arguments":{"ms":60000}}}`)
		if err != nil {
			call <- answer{0, err.Error()}
			return
		}
		call <- answer{resp.StatusCode, body}
	}()
	<-started
	req, err := http.NewRequest(http.MethodDelete, "http://"+addr+Endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(sessionHeader, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	select {
	case a := <-call:
		if a.code != http.StatusNotFound {
			t.Fatalf("the call of a closed session was answered %d %s, want 404", a.code, a.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call went on after its session was closed")
	}
}

// TestRelayAnswersWithGoSDKsCacheControl: go-sdk marks its answer to a
// request no-cache, no-transform; so does the relay, for a call and for a
// kept page.
func TestRelayAnswersWithGoSDKsCacheControl(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{})
	sid := rawSession(t, addr, "")
	for _, body := range []string{rawEcho, rawList, rawList} {
		resp, got := rawPost(t, addr, sid, "", body)
		if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != http.StatusOK || cc != "no-cache, no-transform" {
			t.Fatalf("%s: %d Cache-Control %q (%s), want go-sdk's", body, resp.StatusCode, cc, got)
		}
	}
}

// TestRelayReadsKeysAsGoSDKDoes: go-sdk reads a message's keys case-
// sensitively, so a key in another case is not the key; the relay must not
// read it as one and answer what go-sdk would refuse or read otherwise.
func TestRelayReadsKeysAsGoSDKDoes(t *testing.T) {
	addr := rawFace(t, Options{}, HTTPOptions{})
	sid := rawSession(t, addr, "")
	if resp, body := rawPost(t, addr, sid, "", rawList); resp.StatusCode != http.StatusOK { // a kept page
		t.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	for _, body := range []string{
		`{"JSONRPC":"2.0","ID":2,"METHOD":"tools/call","PARAMS":{"name":"alpha__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"Name":"alpha__echo"}}`,
		`{"jsonrpc":"2.0","id":3,"Method":"tools/list"}`,
	} {
		resp, got := rawPost(t, addr, sid, "", body)
		if strings.Contains(got, "alpha:") || strings.Contains(got, `"tools":[`) {
			t.Fatalf("%s was answered %d %s, as go-sdk would not", body, resp.StatusCode, got)
		}
	}
}
