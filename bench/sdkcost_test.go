//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/weft-dev/weft/internal/testutil"
)

// A minimal reproduction of what go-sdk v1.8.0 itself costs per message,
// apart from anything weft does, so that a fix can be proposed upstream
// and weft's workarounds deleted once it lands:
//
//   - every message (and again every typed params/result/content value)
//     is decoded by the SDK's internal json.Unmarshal, which builds a new
//     segmentio json.Decoder whose read buffer starts at 32 KiB: compare
//     BenchmarkSDKDecode/* with their encoding/json baselines in B/op;
//   - one echo call costs more over the stateful Streamable HTTP server
//     (session lookup, an SSE response stream) than over the stdio
//     transport or the stateless JSON-response server: compare
//     BenchmarkSDKCall/* in ns/op, B/op and allocs/op;
//   - the server reads each request's _meta again, apart from its params
//     (extractRequestMeta: once in validateRequestMeta, once more in the
//     Streamable HTTP handler), each time through that same decoder:
//     BenchmarkSDKRequestMeta shows one such read against segmentio's own
//     Parse with the same flag, which needs no read buffer at all (the
//     fix: internal/json.Unmarshal calling Parse instead of a Decoder).
//
//	go test -run '^$' -bench 'SDKDecode|SDKCall|SDKRequestMeta' -benchmem ./bench

// callRequest is a tools/call as the go-sdk client sends it.
var callRequest = []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping"},"_meta":{"progressToken":"p7"}}}`)

// callResult is the echo tool's result.
var callResult = []byte(`{"content":[{"type":"text","text":"ping"}]}`)

// wireMessage is the JSON-RPC envelope a relay needs: the baseline for
// what decoding one message must cost.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// plainResult mirrors CallToolResult's content without the SDK's decoder.
type plainResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func BenchmarkSDKDecode(b *testing.B) {
	cases := []struct {
		name   string
		decode func() error
	}{
		{"message/go-sdk-jsonrpc", func() error { _, err := jsonrpc.DecodeMessage(callRequest); return err }},
		{"message/encoding-json-envelope", func() error { var m wireMessage; return json.Unmarshal(callRequest, &m) }},
		{"result/go-sdk-CallToolResult", func() error { var r mcp.CallToolResult; return json.Unmarshal(callResult, &r) }},
		{"result/encoding-json-plain", func() error { var r plainResult; return json.Unmarshal(callResult, &r) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// requestMeta is what extractRequestMeta decodes the params into.
type requestMeta struct {
	Meta mcp.Meta `json:"_meta"`
}

func BenchmarkSDKRequestMeta(b *testing.B) {
	var req wireMessage
	if err := json.Unmarshal(callRequest, &req); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name   string
		decode func(v *requestMeta) error
	}{
		// What go-sdk's internal/json.Unmarshal does for every value.
		{"go-sdk-decoder", func(v *requestMeta) error {
			dec := segjson.NewDecoder(bytes.NewReader(req.Params))
			dec.DontMatchCaseInsensitiveStructFields()
			return dec.Decode(v)
		}},
		// The same decode, same flag, without a Decoder's read buffer.
		{"segmentio-parse", func(v *requestMeta) error {
			_, err := segjson.Parse(req.Params, v, segjson.DontMatchCaseInsensitiveStructFields)
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v requestMeta
				if err := c.decode(&v); err != nil || v.Meta["progressToken"] != "p7" {
					b.Fatalf("decoded %v, %v", v.Meta, err)
				}
			}
		})
	}
}

func BenchmarkSDKCall(b *testing.B) {
	cases := []struct {
		name    string
		connect func(b *testing.B) *mcp.ClientSession
	}{
		{"stdio", connectPipes},
		{"http-stateful-sse", func(b *testing.B) *mcp.ClientSession { return connectServer(b, nil) }},
		{"http-stateless-json", func(b *testing.B) *mcp.ClientSession {
			return connectServer(b, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchCPU(b, echoCaller(c.connect(b), "echo")) })
	}
}

// connectPipes serves the echo server over the stdio transport's framing
// (newline-delimited JSON on OS pipes) and connects a client to it.
func connectPipes(b *testing.B) *mcp.ClientSession {
	b.Helper()
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := testutil.NewEchoServer("bench", 1).Connect(ctx, &mcp.IOTransport{Reader: toServer, Writer: fromServer}, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := benchClient().Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
		cancel()
	})
	return cs
}

// connectServer serves the echo server over Streamable HTTP with opts and
// connects a client to it.
func connectServer(b *testing.B, opts *mcp.StreamableHTTPOptions) *mcp.ClientSession {
	b.Helper()
	s := testutil.NewEchoServer("bench", 1)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
	b.Cleanup(srv.Close)
	cs, err := connectHTTP(context.Background(), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// reportCPU adds the process's CPU per call (client and server together)
// since cpu0, which a loaded machine disturbs less than ns/op.
func reportCPU(b *testing.B, cpu0 time.Duration, err error) {
	cpu1, err1 := cpuTime(0)
	if err == nil && err1 == nil && b.N > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
