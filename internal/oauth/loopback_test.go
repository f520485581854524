package oauth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lineWriter hands each write to a channel, for a test to react to.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	select {
	case w <- string(p):
	default:
	}
	return len(p), nil
}

func TestLoopbackReceivesTheCode(t *testing.T) {
	redirect, err := LoopbackRedirect(0)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/callback$`).MatchString(redirect) {
		t.Fatalf("redirect %q is not a loopback callback", redirect)
	}
	out := make(lineWriter, 16)
	opened := make(chan string, 1)
	lb := &Loopback{Out: out, Open: func(u string) error { opened <- u; return nil }}
	type result struct {
		code, state string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		res, err := lb.Fetch(context.Background(), redirect, "https://as.example/authorize?x=1")
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{code: res.Code, state: res.State}
	}()
	if got := <-opened; got != "https://as.example/authorize?x=1" {
		t.Errorf("browser opened %q", got)
	}
	// The authorization server's redirect, as the browser follows it.
	resp, err := http.Get(redirect + "?code=abc&state=xyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-done
	if r.err != nil || r.code != "abc" || r.state != "xyz" {
		t.Errorf("Fetch = %+v", r)
	}
}

// A browser's spare connection that never sends a request is closed once the
// callback has arrived, instead of holding the login's end.
func TestLoopbackClosesASilentConnection(t *testing.T) {
	redirect, _ := LoopbackRedirect(0)
	opened := make(chan struct{})
	lb := &Loopback{Out: io.Discard, Open: func(string) error { close(opened); return nil }}
	done := make(chan error, 1)
	go func() {
		_, err := lb.Fetch(context.Background(), redirect, "https://as.example/authorize")
		done <- err
	}()
	<-opened
	addr, _ := callbackAddr(redirect)
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	resp, err := http.Get(redirect + "?code=abc&state=xyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-done; err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	// A bound for a broken build, not a timing claim: the server's own
	// header timeout (10 s) would otherwise close it.
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the silent connection was not closed at the login's end: %v", err)
	}
}

func TestLoopbackGivesUp(t *testing.T) {
	redirect, _ := LoopbackRedirect(0)
	var buf strings.Builder
	lb := &Loopback{Out: &buf, NoBrowser: true, Timeout: 1500 * time.Millisecond}
	_, err := lb.Fetch(context.Background(), redirect, "https://as.example/authorize")
	if err == nil || !strings.Contains(err.Error(), "run the command again") {
		t.Errorf("timeout: %v", err)
	}
	if !strings.Contains(buf.String(), "https://as.example/authorize") || !strings.Contains(buf.String(), "s left") {
		t.Errorf("the URL and a countdown were not shown:\n%s", buf.String())
	}
}

func TestLoopbackOnlyOnLoopback(t *testing.T) {
	lb := &Loopback{NoBrowser: true}
	for _, u := range []string{"http://example.com:8080/callback", "https://127.0.0.1:8080/callback", "http://127.0.0.1/callback"} {
		if _, err := lb.Fetch(context.Background(), u, "https://as/authorize"); err == nil {
			t.Errorf("%s accepted as a login callback", u)
		}
	}
}
