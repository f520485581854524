package gateway

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// HTTPOptions harden the HTTP face.
type HTTPOptions struct {
	// Listen is the address weft is bound to; its host is accepted as a Host
	// header along with the loopback names.
	Listen string
	// Token, when set, is the bearer token every request must carry. It is
	// required when Listen is not a loopback address.
	Token string
	// MaxBodyBytes bounds a request body (default 4 MiB).
	MaxBodyBytes int64
	// Auth, when set, authenticates every request instead of the Token
	// check (it accepts Token itself) and strips the credentials.
	Auth func(http.Handler) http.Handler
	// AgentOf, with Auth, names the agent each verified identity acts as
	// (agentidentity.go); nil: identities select no agent.
	AgentOf AgentOfRequest
	// The limits below default to config's (httpserver.go withDefaults).
	MaxConnections     int           // open client connections
	IdleTimeout        time.Duration // keep-alive connection with no request
	BodyTimeout        time.Duration // reading one request body
	MaxSessions        int           // Streamable HTTP sessions
	SessionIdleTimeout time.Duration // session nobody used
}

// IsLoopbackListen reports whether addr (host:port) binds only loopback.
// An empty host or 0.0.0.0 binds every interface, so it is not loopback.
func IsLoopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return isLoopbackHost(host)
}

func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard wraps every endpoint of the HTTP face: the Host must be the bound
// address or a loopback name (DNS rebinding), a present Origin must match it
// (cross-site requests), a POST must be JSON (cross-site simple requests),
// the bearer token must match when one is set, and the body must be one
// bounded JSON-RPC message: no batch, no keys that differ only in case.
func guard(next http.Handler, o HTTPOptions) http.Handler {
	o = o.withDefaults()
	boundHost, _, _ := net.SplitHostPort(o.Listen)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := checkHost(r.Host, boundHost); msg != "" {
			refuse(w, msg, http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			refuse(w, fmt.Sprintf("weft: cross-origin request refused: Origin %q is not this weft", origin), http.StatusForbidden)
			return
		}
		if !ownAuth(r) && !agentAuthed(r) && !tokenOK(r, o.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="weft"`)
			refuse(w, "weft: missing or wrong bearer token (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		// The token authenticates the client to weft only; it is never passed
		// on, so drop it before anything downstream can see it.
		r.Header.Del("Authorization")
		if r.Method == http.MethodPost {
			if !checkBody(w, r, o.MaxBodyBytes, o.BodyTimeout) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers a refused request and closes its connection: a client
// that is refused keeps no idle connection (and file descriptor) of weft's.
func refuse(w http.ResponseWriter, msg string, status int) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, status)
}

// checkHost returns why host is refused, or "".
func checkHost(hostport, bound string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if isLoopbackHost(host) {
		return ""
	}
	if bound != "" && !isUnspecified(bound) && strings.EqualFold(strings.Trim(host, "[]"), strings.Trim(bound, "[]")) {
		return ""
	}
	if bound != "" && isUnspecified(bound) && net.ParseIP(strings.Trim(host, "[]")) != nil {
		// Bound to every interface (token required): any literal address of
		// this machine is acceptable, names are not (DNS rebinding).
		return ""
	}
	return fmt.Sprintf("weft: Host %q refused: only this weft's address or a loopback name is accepted", host)
}

// sameOrigin reports whether an Origin header names the host the request
// was sent to ("null" and unparsable origins are foreign).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

func isUnspecified(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return host == "" || (ip != nil && ip.IsUnspecified())
}

func tokenOK(r *http.Request, token string) bool {
	if token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// checkBody enforces the JSON content type, the size limit and the shape of
// a single message, then puts the body back for the MCP handler. It writes
// the refusal and returns false when the request is refused.
func checkBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) bool {
	if !isJSON(r.Header.Get("Content-Type")) {
		refuse(w, "weft: Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return false
	}
	// A slow body must not hold the connection (and a goroutine) forever;
	// the deadline is lifted again so that a response stream is not cut.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := readBody(http.MaxBytesReader(w, r.Body, limit), r.ContentLength, limit)
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(w, fmt.Sprintf("weft: request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return false
		}
		refuse(w, "weft: cannot read request body", http.StatusBadRequest)
		return false
	}
	bad, env := checkEnvelope(body)
	if bad != nil {
		refuseMessage(w, bad)
		return false
	}
	cb := &checkedBody{data: body, env: env}
	cb.Reset(body)
	r.Body = cb
	return true
}

// isJSON reports whether a Content-Type names application/json, without
// parsing the common exact value (ParseMediaType allocates its parameters).
func isJSON(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json"
}

// checkedBody is a request body checkBody read and checked, with what the
// walk of the check found: a relay takes both from it instead of reading
// the body again and parsing its envelope a second time. The reader is
// held by value: one allocation for the body's reader, not two.
type checkedBody struct {
	bytes.Reader
	data []byte
	env  *rawEnvelope // nil: the check did not walk the message
}

func (*checkedBody) Close() error { return nil }

// requestBody is r's whole body, without copying one checkBody read; r's
// body reads from its start afterwards. env is what checkBody's walk
// found, nil when the body did not come from it.
func requestBody(r *http.Request) (body []byte, env *rawEnvelope, err error) {
	if cb, ok := r.Body.(*checkedBody); ok && cb.Reader.Len() == len(cb.data) {
		return cb.data, cb.env, nil
	}
	body, err = io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil, err
}

// readBody reads a whole body into one buffer of its declared size, where
// io.ReadAll would grow one step by step.
func readBody(r io.Reader, size, limit int64) ([]byte, error) {
	if size <= 0 || size > limit {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // ReadFrom wants MinRead free to see EOF
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}
