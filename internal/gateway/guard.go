package gateway

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = maxBody
	}
	boundHost, _, _ := net.SplitHostPort(o.Listen)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := checkHost(r.Host, boundHost); msg != "" {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			http.Error(w, fmt.Sprintf("weft: cross-origin request refused: Origin %q is not this weft", origin), http.StatusForbidden)
			return
		}
		if !tokenOK(r, o.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="weft"`)
			http.Error(w, "weft: missing or wrong bearer token (Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
		// The token authenticates the client to weft only; it is never passed
		// on, so drop it before anything downstream can see it.
		r.Header.Del("Authorization")
		if r.Method == http.MethodPost {
			if !checkBody(w, r, o.MaxBodyBytes) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
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
func checkBody(w http.ResponseWriter, r *http.Request, limit int64) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		http.Error(w, "weft: Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("weft: request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return false
		}
		http.Error(w, "weft: cannot read request body", http.StatusBadRequest)
		return false
	}
	if msg := CheckMessage(body); msg != "" {
		http.Error(w, "weft: "+msg, http.StatusBadRequest)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}

// CheckMessage returns why a JSON-RPC message is refused, or "": a batch,
// or an object holding two keys that differ only in case, which
// case-insensitive decoders would read differently from weft.
func CheckMessage(body []byte) string {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return "JSON-RPC batches are not accepted; send one message per request"
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if key, err := scanKeys(dec); err != nil {
		return "request body is not valid JSON"
	} else if key != "" {
		return fmt.Sprintf("ambiguous message: key %q appears more than once (keys are compared ignoring case)", key)
	}
	return ""
}

// scanKeys walks one JSON value and returns the first key of an object that
// repeats another key of the same object, ignoring case.
func scanKeys(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", nil
	}
	seen := map[string]bool{}
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return "", err
			}
			key := strings.ToLower(fmt.Sprint(k))
			if seen[key] {
				return fmt.Sprint(k), nil
			}
			seen[key] = true
		}
		if dup, err := scanKeys(dec); err != nil || dup != "" {
			return dup, err
		}
	}
	_, err = dec.Token() // the closing delimiter
	return "", err
}
