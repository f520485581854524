package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the server sections of testdata/forwarding/*.txtar")

// TestForwardingTranscripts replays the client messages of each
// testdata/forwarding/*.txtar against a gateway over a hub with two go-sdk
// upstreams (alpha, beta) and compares what the face sends back with the
// archive's server section, message by message. Run with -update to
// rewrite the server sections after an intended change, and review the
// diff: these transcripts are weft's forwarding rules on the wire
// (namespacing, routing, relayed and weft's own errors).
func TestForwardingTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "forwarding", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { runTranscript(t, path) })
	}
}

// goldenUpstream is a small go-sdk server: echo names the server, boom
// answers with its own JSON-RPC error, hold blocks until released.
func goldenUpstream(name string, release <-chan struct{}, held chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	type echoIn struct {
		Text string `json:"text" jsonschema:"text to echo"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom", Description: "Fail with the server's own JSON-RPC error"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: -32042, Message: name + " refuses"}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hold", Description: "Block until the test releases it"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		held <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
	})
	return s
}

func runTranscript(t *testing.T, path string) {
	arch, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]byte{}
	for _, f := range arch.Files {
		sections[f.Name] = f.Data
	}
	release, held := make(chan struct{}), make(chan struct{}, 1)
	urls := map[string]string{}
	for _, name := range []string{"alpha", "beta"} {
		urls[name] = testutil.ServeHTTP(t, goldenUpstream(name, release, held))
	}
	ctx := context.Background()
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames, DrainTimeout: time.Minute})
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, name := range []string{"alpha", "beta"} {
		if _, err := h.Add(ctx, &config.Server{Name: name, Type: config.TransportHTTP, Target: urls[name], TimeoutMS: 20_000}); err != nil {
			t.Fatal(err)
		}
	}
	gw := gateway.New(h, gateway.Options{Version: "golden"})
	finish := setUp(t, h, string(sections["setup"]), release, held)
	got := exchange(t, gw, decodeMessages(t, sections["client"]))
	finish()
	if *update {
		for i, f := range arch.Files {
			if f.Name == "server" {
				arch.Files[i].Data = got
			}
		}
		if sections["server"] == nil {
			arch.Files = append(arch.Files, txtar.File{Name: "server", Data: got})
		}
		if err := os.WriteFile(path, txtar.Format(arch), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := sections["server"]; !bytes.Equal(got, want) {
		t.Errorf("server messages differ from %s (rerun with -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// setUp brings the hub into the state the setup section names before the
// client connects; the returned func undoes it.
func setUp(t *testing.T, h *hub.Hub, setup string, release chan struct{}, held chan struct{}) func() {
	var undo []func()
	for _, line := range strings.Split(strings.TrimSpace(setup), "\n") {
		switch strings.TrimSpace(line) {
		case "":
		case "drain alpha": // a call in flight on alpha, and alpha removed
			called := make(chan struct{})
			go func() {
				defer close(called)
				_, _ = h.CallTool(context.Background(), nil, "alpha__hold", nil, nil)
			}()
			<-held
			removed := make(chan struct{})
			go func() { defer close(removed); _ = h.Remove(context.Background(), "alpha") }()
			for draining := false; !draining; {
				for _, st := range h.List() {
					draining = draining || (st.Name == "alpha" && st.Status == hub.StatusDraining)
				}
				time.Sleep(5 * time.Millisecond)
			}
			undo = append(undo, func() { close(release); <-called; <-removed })
		default:
			t.Fatalf("unknown setup %q", line)
		}
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// decodeMessages reads a stream of JSON-RPC messages.
func decodeMessages(t *testing.T, data []byte) []jsonrpc.Message {
	dec := json.NewDecoder(bytes.NewReader(data))
	var msgs []jsonrpc.Message
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err.Error() == "EOF" {
				return msgs
			}
			t.Fatalf("client section: %v", err)
		}
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			t.Fatalf("client section: %v", err)
		}
		msgs = append(msgs, msg)
	}
}

// exchange plays the client's messages against the face, waiting for the
// answer to each call, and returns everything the face sent, indented.
func exchange(t *testing.T, gw *gateway.Gateway, client []jsonrpc.Message) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, msg := range client {
		if err := stream.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		for {
			in, err := stream.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to %s: %v", req.Method, err)
			}
			b, err := jsonrpc.EncodeMessage(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Indent(&out, b, "", "\t"); err != nil {
				t.Fatal(err)
			}
			out.WriteByte('\n')
			if res, ok := in.(*jsonrpc.Response); ok && res.ID == req.ID {
				break
			}
		}
	}
	if err := stream.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Logf("close: %v", err)
	}
	_ = ss.Wait()
	return out.Bytes()
}
