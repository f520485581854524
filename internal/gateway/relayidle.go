package gateway

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// go-sdk stops a session's idle timer while one of its POSTs is in flight,
// so a call longer than the idle timeout never ends its own session. It
// does not see a relayed call, whose session it would close under it. While
// a session has relayed calls in flight, the relay therefore passes go-sdk
// a message of the session whenever go-sdk has not seen one for idle/4:
// a response to no request of the server's (go-sdk's own requests have
// integer ids), which go-sdk accepts (202) and drops, and which resets its
// timer as any POST does. It never leaves weft.
const keepAliveBody = `{"jsonrpc":"2.0","id":"weft-keepalive","result":{}}`

// busy notes a relayed call of s starting, with its request, and starts
// watching go-sdk's idle timer if nothing watches it.
func (rl *relay) busy(s *relaySession, r *http.Request) {
	if rl.idle <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.watch != nil {
		return
	}
	tmpl := r.Clone(context.WithoutCancel(r.Context())) // its token, not its end
	s.watch = time.AfterFunc(rl.idle/4, func() { rl.watchIdle(s, tmpl) })
}

// done notes a relayed call of s ending.
func (rl *relay) done(s *relaySession) {
	if rl.idle <= 0 {
		return
	}
	s.mu.Lock()
	s.calls--
	s.mu.Unlock()
}

// watchIdle keeps go-sdk's idle timer of s from firing while relayed calls
// are in flight, and stops when none is.
func (rl *relay) watchIdle(s *relaySession, tmpl *http.Request) {
	s.mu.Lock()
	if s.calls == 0 || s.closed {
		s.watch = nil
		s.mu.Unlock()
		return
	}
	s.watch.Reset(rl.idle / 4)
	s.mu.Unlock()
	if rl.sdkDue(s) {
		rl.keepAlive(s, tmpl)
	}
}

// keepAlive passes go-sdk keepAliveBody as a POST of the session, with the
// headers and token of tmpl, a relayed call's request.
func (rl *relay) keepAlive(s *relaySession, tmpl *http.Request) {
	req := tmpl.Clone(tmpl.Context())
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(keepAliveBody)), int64(len(keepAliveBody))
	rl.pass(discard{}, req, s.ss.ID(), s)
}

// discard is a ResponseWriter for go-sdk's answer to keepAliveBody.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
