package upstream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"golang.org/x/oauth2"
)

// grantingHandler is an OAuth handler whose Authorize "logs in" at once.
type grantingHandler struct {
	mu         sync.Mutex
	token      string
	authorized int
}

func (h *grantingHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.token == "" {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: h.token}), nil
}

func (h *grantingHandler) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	h.mu.Lock()
	h.token, h.authorized = "good", h.authorized+1
	h.mu.Unlock()
	return nil
}

// TestOAuthOverBothHTTPTransports checks that the OAuth hook reaches both
// remote transports: the first request is refused, the handler authorizes,
// and the session then carries the token on every request.
func TestOAuthOverBothHTTPTransports(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	getServer := func(*http.Request) *mcp.Server { return s }
	for _, typ := range []string{config.TransportHTTP, config.TransportSSE} {
		t.Run(typ, func(t *testing.T) {
			var inner http.Handler = mcp.NewStreamableHTTPHandler(getServer, nil)
			if typ == config.TransportSSE {
				inner = mcp.NewSSEHandler(getServer, nil)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer good" {
					http.Error(w, "no", http.StatusUnauthorized)
					return
				}
				inner.ServeHTTP(w, r)
			}))
			defer func() {
				srv.CloseClientConnections()
				srv.Close()
			}()
			h := &grantingHandler{}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Dial(ctx, &config.Server{Name: "g", Type: typ, Target: srv.URL, TimeoutMS: 10_000}, Options{OAuth: func(*config.Server) auth.OAuthHandler { return h }})
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer c.Close(context.Background())
			if len(c.Inventory().Tools) != 1 || h.authorized != 1 {
				t.Errorf("tools %d, authorized %d times; want 1 and 1", len(c.Inventory().Tools), h.authorized)
			}
		})
	}
}
