package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
)

// TestDialSaysWhyARemoteServerRefused: a 401 or 403 from a remote server
// fails the connect with a message naming the status and what to set, and
// a ${VAR} reference to an unset variable fails before any request with
// the variable and the entry named.
func TestDialSaysWhyARemoteServerRefused(t *testing.T) {
	for _, c := range []struct {
		name    string
		status  int
		headers map[string]string
		want    string
	}{
		{"401 without headers", http.StatusUnauthorized, nil, "answered 401 Unauthorized: it needs credentials; set them under headers"},
		{"401 with headers", http.StatusUnauthorized, map[string]string{"Authorization": "Bearer x"}, "credentials in its headers were not accepted"},
		{"403", http.StatusForbidden, map[string]string{"Authorization": "Bearer x"}, "answered 403 Forbidden"},
		{"unset variable", 0, map[string]string{"Authorization": "Bearer ${WEFT_TEST_SURELY_UNSET}"}, `server "remote": header Authorization uses ${WEFT_TEST_SURELY_UNSET}, which is not set`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				http.Error(w, "no", c.status)
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cfg := &config.Server{Name: "remote", Target: srv.URL + "/mcp", Type: config.TransportHTTP, Headers: c.headers}
			_, err := Dial(ctx, cfg, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Dial: %v, want it to say %q", err, c.want)
			}
			if c.status != 0 && !errors.Is(err, ErrUnauthorized) {
				t.Errorf("%v does not wrap ErrUnauthorized", err)
			}
			if c.status == 0 && hits.Load() != 0 {
				t.Errorf("weft sent %d requests with an unset variable", hits.Load())
			}
		})
	}
}
