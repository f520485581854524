package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/weft-dev/weft/internal/config"
)

// BenchmarkHTTPPostedCall is weft's own POST of a tools/call (httppost.go)
// at 64 in flight against a canned Streamable HTTP endpoint, so that a
// profile shows the upstream side of a relayed call: request building,
// net/http's transport, the event stream read, the response matched.
// The endpoint's own cost is net/http's server plus one Fprintf.
//
//	go test -run '^$' -bench HTTPPostedCall -benchmem -cpuprofile cpu.out ./internal/upstream
func BenchmarkHTTPPostedCall(b *testing.B) {
	// "sse-oauth": with an OAuth handler that has no token yet, as `weft
	// serve` gives every remote upstream without an Authorization header.
	noLogin := func(*config.Server) auth.OAuthHandler { return &grantingHandler{} }
	for _, mode := range []struct {
		name, ct string
		oauth    func(*config.Server) auth.OAuthHandler
	}{{"sse", "text/event-stream", nil}, {"sse-oauth", "text/event-stream", noLogin}, {"json", "application/json", nil}} {
		b.Run(mode.name, func(b *testing.B) {
			srv := httptest.NewServer(cannedUpstream(mode.ct))
			b.Cleanup(srv.Close)
			c, err := Dial(context.Background(), &config.Server{Name: "s", Type: config.TransportHTTP, Target: srv.URL, TimeoutMS: 5000}, Options{Logger: quiet(), OAuth: mode.oauth})
			if err != nil {
				b.Fatalf("dial: %v", err)
			}
			b.Cleanup(func() { c.Close(context.Background()) })
			args := json.RawMessage(`{"text":"ping"}`)
			b.ReportAllocs()
			b.SetParallelism(32)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", args, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// cannedUpstream speaks just enough Streamable HTTP for weft's connection:
// initialize, tools/list with one tool, tools/call answered with ct (an
// event stream or a JSON body), notifications accepted, no standalone
// stream.
func cannedUpstream(ct string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch msg.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "canned")
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"content":[{"type":"text","text":"ping"}]}`
			if ct == "text/event-stream" {
				w.Header().Set("Content-Type", ct)
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", msg.ID, result)
				return
			}
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		var out bytes.Buffer
		fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
		_, _ = w.Write(out.Bytes())
	}
}
