package testutil

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeHTTP serves s over Streamable HTTP on loopback for the test's
// lifetime and returns its endpoint URL.
func ServeHTTP(t testing.TB, s *mcp.Server) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// ServeGatedHTTP serves h on loopback for the test's lifetime, holding every
// request until gate is closed: an upstream whose handshake takes as long as
// the test wants. It returns the server's URL.
func ServeGatedHTTP(t testing.TB, h http.Handler, gate <-chan struct{}) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL
}
