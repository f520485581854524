package ui

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

func newHandler(t *testing.T, token string) (http.Handler, *Live) {
	h := hub.New(hub.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { h.Close(context.Background()) })
	live := NewLive(func(s string) string { return strings.ReplaceAll(s, "hunter22", "***") })
	t.Cleanup(live.Close)
	return Handler(Options{Hub: h, Live: live, Token: token}), live
}

func do(h http.Handler, method, target, body string, cookie *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTokenBecomesAnHttpOnlyCookie(t *testing.T) {
	h, _ := newHandler(t, "s3cret-token")
	if rec := do(h, "GET", "/ui/", "", nil); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/ui/login" {
		t.Fatalf("page without token: %d → %q, want a redirect to the login form", rec.Code, rec.Header().Get("Location"))
	}
	if rec := do(h, "GET", "/ui/api/state", "", nil); rec.Code != http.StatusUnauthorized {
		t.Fatalf("API without token: %d, want 401", rec.Code)
	}
	if rec := do(h, "GET", "/ui/?token=wrong", "", nil); rec.Code != http.StatusSeeOther || !strings.Contains(rec.Header().Get("Location"), "failed") {
		t.Fatalf("wrong ?token=: %d → %q, want back to the login form", rec.Code, rec.Header().Get("Location"))
	}
	rec := do(h, "GET", "/ui/?token=s3cret-token", "", nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/ui/" {
		t.Fatalf("?token= exchange: %d → %q, want a redirect to the bare /ui/", rec.Code, rec.Header().Get("Location"))
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/ui/" {
		t.Fatalf("cookie %+v, want one HttpOnly SameSite=Strict cookie for /ui/", cookies)
	}
	if rec := do(h, "GET", "/ui/api/state", "", cookies[0]); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"servers":[]`) {
		t.Fatalf("API with the cookie: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, "POST", "/ui/login", `{"token":"nope"}`, nil); rec.Code != http.StatusUnauthorized {
		t.Fatalf("login with a wrong token: %d, want 401", rec.Code)
	}
	if rec := do(h, "POST", "/ui/login", `{"token":"s3cret-token"}`, nil); rec.Code != http.StatusNoContent || len(rec.Result().Cookies()) != 1 {
		t.Fatalf("login: %d, want 204 with the cookie", rec.Code)
	}
	if rec := do(h, "GET", "/ui/", "", nil); rec.Header().Get("X-Frame-Options") != "DENY" || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("security headers missing: %v", rec.Header())
	}
}

func TestActionsWithoutImplementationAreRefused(t *testing.T) {
	h, _ := newHandler(t, "")
	if rec := do(h, "POST", "/ui/api/servers/x/remove", "{}", nil); rec.Code != http.StatusNotImplemented {
		t.Fatalf("action with no Actions: %d, want 501", rec.Code)
	}
	if rec := do(h, "POST", "/ui/api/servers/x/explode", "{}", nil); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown action: %d, want 404", rec.Code)
	}
}

func TestEventsStreamCallsAndEndOnClose(t *testing.T) {
	h, live := newHandler(t, "")
	r := openEvents(t, h)
	next := func() string { name, _ := nextEvent(t, r); return name }
	if got := next(); got != "servers" {
		t.Fatalf("first event %q, want the servers table", got)
	}
	c := &hub.Call{ID: 7, Tool: "a__b", Server: "a", Start: time.Now()}
	live.CallStarted(context.Background(), c)
	if got := next(); got != "call" {
		t.Fatalf("event %q after a call started, want call", got)
	}
	live.Close()
	if _, err := io.ReadAll(r); err != nil {
		t.Fatalf("stream did not end cleanly on Close: %v", err)
	}
}

func TestStatsQuantilesAndRedaction(t *testing.T) {
	live := NewLive(func(s string) string { return strings.ReplaceAll(s, "hunter22", "***") })
	for i := 1; i <= 100; i++ {
		c := &hub.Call{ID: uint64(i), Server: "s", Duration: time.Duration(i) * time.Millisecond, Outcome: hub.OutcomeOK}
		if i == 100 {
			c.Outcome, c.Err = hub.OutcomeError, errContains("bad password hunter22")
		}
		live.CallEnded(context.Background(), c)
	}
	st := live.statsOf("s")
	if st.Calls != 100 || st.Errors != 1 || st.P50MS != 50 || st.P99MS != 99 || st.LastError != "bad password ***" {
		t.Fatalf("stats %+v, want 100 calls, 1 error, p50 50, p99 99 and the secret masked", st)
	}
}

type errContains string

func (e errContains) Error() string { return string(e) }

// nextEvent reads the next server-sent event's name and data.
func nextEvent(t *testing.T, r *bufio.Reader) (name, data string) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			d, _ := r.ReadString('\n')
			return strings.TrimSpace(n), strings.TrimSpace(strings.TrimPrefix(d, "data: "))
		}
	}
}

// openEvents opens the dashboard's event stream, closed when the test ends.
func openEvents(t *testing.T, h http.Handler) *bufio.Reader {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/ui/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return bufio.NewReader(resp.Body)
}
