package upstream

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStreamLinesGiveBackTheirBufferAtTheEnd: a pooled line reader reads
// every line, gives its buffer back when the body ends, and answers every
// later Read with the same end, without the buffer.
func TestStreamLinesGiveBackTheirBufferAtTheEnd(t *testing.T) {
	body := "event: message\n" + "data: " + strings.Repeat("x", 3*streamBuffer) + "\n\n"
	lines := newStreamLines(io.NopCloser(strings.NewReader(body)), 1<<20, func(line []byte) ([]byte, error) { return line, nil })
	got, err := io.ReadAll(lines)
	if err != nil || string(got) != body {
		t.Fatalf("read %d bytes (%v), want the %d of the body", len(got), err, len(body))
	}
	if lines.r != nil {
		t.Error("the buffer was kept after the body ended")
	}
	if n, err := lines.Read(make([]byte, 8)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("Read after the end = %d, %v; want 0, EOF", n, err)
	}
}

// TestOAuthTransportWithoutTokenRetriesWithTheBody: with no token yet, the
// first try goes out as the caller made it (no copy, no header), and the
// retry after Authorize carries the token and the whole body again.
func TestOAuthTransportWithoutTokenRetriesWithTheBody(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, r.Header.Get("Authorization")+" "+string(b))
		if r.Header.Get("Authorization") != "Bearer good" {
			http.Error(w, "no", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	h := &grantingHandler{}
	client := withOAuth(&http.Client{Transport: srv.Client().Transport}, h)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(`{"a":1}`)))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{` {"a":1}`, `Bearer good {"a":1}`}
	if resp.StatusCode != http.StatusOK || strings.Join(bodies, "|") != strings.Join(want, "|") {
		t.Errorf("status %d, requests %q; want 200 and %q", resp.StatusCode, bodies, want)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("the caller's request was given the token")
	}
}
