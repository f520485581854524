package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// DefaultLoginTimeout is how long a login waits for the browser.
const DefaultLoginTimeout = 5 * time.Minute

// LoopbackRedirect returns http://127.0.0.1:PORT/callback; port 0 picks a
// free port now (it is bound again when the login waits for the redirect).
func LoopbackRedirect(port int) (string, error) {
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("no free loopback port for the login callback: %w", err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/callback", nil
}

// loopbackFree reports whether the redirect URL's loopback port can be bound.
func loopbackFree(redirectURL string) bool {
	addr, err := callbackAddr(redirectURL)
	if err != nil {
		return false
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// Loopback is the interactive login of a terminal: it prints the
// authorization URL on Out, opens a browser unless NoBrowser, counts down,
// and takes the code from the redirect to the loopback callback.
type Loopback struct {
	Out       io.Writer
	NoBrowser bool
	Timeout   time.Duration
	// Open opens a URL in a browser (default: the system's opener).
	Open func(url string) error
	// MustOpen ends the login when Open fails (the URL was shown nowhere else).
	MustOpen bool
}

// Login returns the Login that uses l.
func (l *Loopback) Login() *Login { return &Login{Fetch: l.Fetch} }

// Fetch waits for the authorization server's redirect to redirectURL.
func (l *Loopback) Fetch(ctx context.Context, redirectURL, authURL string) (*auth.AuthorizationResult, error) {
	addr, err := callbackAddr(redirectURL)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for the login callback (%v); set oauth.redirect_port to a free port", addr, err)
	}
	got := make(chan *auth.AuthorizationResult, 1)
	var silent silentConns
	srv := &http.Server{Handler: callbackHandler(got), ReadHeaderTimeout: 10 * time.Second, ConnState: silent.track}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// Browsers open spare connections they may never use; Shutdown would
		// wait for those. The callback has arrived, so close them first and
		// let the browser get its "logged in" page before the rest close.
		silent.close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
	}()

	fmt.Fprintf(l.Out, "Open this URL to log in:\n  %s\n", authURL)
	if !l.NoBrowser {
		if err := l.openBrowser(authURL); err != nil && l.MustOpen {
			return nil, err
		}
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	return l.wait(ctx, got, timeout)
}

func (l *Loopback) openBrowser(authURL string) error {
	open := l.Open
	if open == nil {
		open = openBrowser
	}
	err := open(authURL)
	if err != nil {
		fmt.Fprintf(l.Out, "(could not open a browser: %v; open the URL yourself)\n", err)
	}
	return err
}

// wait shows a countdown until the callback arrives or time runs out.
func (l *Loopback) wait(ctx context.Context, got <-chan *auth.AuthorizationResult, timeout time.Duration) (*auth.AuthorizationResult, error) {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := int(timeout.Seconds())
	fmt.Fprintf(l.Out, "Waiting for the login: %3ds left ", last)
	for {
		select {
		case res := <-got:
			fmt.Fprintln(l.Out, "\rLogin received.                          ")
			if res.Code == "" {
				return nil, errors.New("the authorization server sent no code (login refused or cancelled); run the command again")
			}
			return res, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("login cancelled: %w", ctx.Err())
		case <-tick.C:
			left := int(time.Until(deadline).Seconds())
			if left <= 0 {
				fmt.Fprintln(l.Out)
				return nil, fmt.Errorf("no login within %v; run the command again and finish the login in the browser", timeout)
			}
			if left/10 != last/10 || left <= 10 {
				fmt.Fprintf(l.Out, "\rWaiting for the login: %3ds left ", left)
				last = left
			}
		}
	}
}

// callbackAddr turns the redirect URL into the address to listen on; only
// loopback addresses are accepted.
func callbackAddr(redirectURL string) (string, error) {
	u, err := parseLoopback(redirectURL)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}

// callbackHandler takes the first redirect to /callback.
func callbackHandler(got chan<- *auth.AuthorizationResult) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		res := &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "weft is logged in. You can close this window."
		if res.Code == "" {
			msg = "The login did not complete: " + q.Get("error") + " " + q.Get("error_description")
		}
		fmt.Fprintf(w, "<!doctype html><title>weft</title><p>%s</p>", html.EscapeString(msg))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case got <- res:
		default:
		}
	})
	return mux
}

// silentConns tracks the callback server's connections that have not sent a
// request yet.
type silentConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is the server's ConnState hook.
func (s *silentConns) track(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if state != http.StateNew {
		delete(s.conns, c)
		return
	}
	if s.conns == nil {
		s.conns = make(map[net.Conn]struct{})
	}
	s.conns[c] = struct{}{}
}

// close closes every connection that is still silent.
func (s *silentConns) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
}
