//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// revisionClient is a downstream go-sdk client with sampling, elicitation
// and roots. It answers a classic elicitation request from the requested
// schema in middleware, ahead of the SDK's own schema checks, which refuse
// titled multi-select enums that the spec allows; an input-required result
// is answered by the SDK, checks and all.
func revisionClient(seen *schemas) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-revisions"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "e2e-sampled"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: formAnswer(req.Params.RequestedSchema)}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			seen.mu.Lock()
			defer seen.mu.Unlock()
			seen.progress = append(seen.progress, req.Params.ProgressToken)
			seen.signal()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case seen.tools <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case seen.updated <- req.Params.URI:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			seen.mu.Lock()
			defer seen.mu.Unlock()
			seen.logs = append(seen.logs, fmt.Sprint(req.Params.Data))
			seen.signal()
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///tmp/e2e-root", Name: "e2e-root"})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "elicitation/create" {
				return next(ctx, method, req)
			}
			p, _ := req.GetParams().(*mcp.ElicitParams)
			seen.add(p.RequestedSchema)
			return &mcp.ElicitResult{Action: "accept", Content: formAnswer(p.RequestedSchema)}, nil
		}
	})
	return c
}

// schemas records what a client was sent: elicitation forms (as JSON),
// progress tokens and log messages.
type schemas struct {
	mu       sync.Mutex
	all      []string
	progress []any
	logs     []string
	updated  chan string   // URIs of notifications/resources/updated
	changed  chan struct{} // signalled when progress or a log message arrives
	tools    chan struct{} // one signal per notifications/tools/list_changed
}

func newSchemas() *schemas {
	return &schemas{updated: make(chan string, 16), changed: make(chan struct{}, 1), tools: make(chan struct{}, 64)}
}

func (s *schemas) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// await waits until done holds for what was seen (notifications are
// handled apart from results, so they may trail the result of their call).
func (s *schemas) await(ctx context.Context, done func(progress []any, logs []string) bool) ([]any, []string) {
	for {
		progress, logs := s.seen()
		if done(progress, logs) {
			return progress, logs
		}
		select {
		case <-s.changed:
		case <-ctx.Done():
			return progress, logs
		}
	}
}

func (s *schemas) add(schema any) {
	b, _ := json.Marshal(schema)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, string(b))
}

func (s *schemas) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.all, "\n")
}

func (s *schemas) seen() (progress []any, logs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]any(nil), s.progress...), append([]string(nil), s.logs...)
}

// formAnswer fills every property of an elicitation form: the first choice
// of an enum, the e2e marker for free text.
func formAnswer(schema any) map[string]any {
	type choice struct {
		Const any `json:"const"`
	}
	type prop struct {
		Type  string   `json:"type"`
		Enum  []any    `json:"enum"`
		OneOf []choice `json:"oneOf"`
		Items *struct {
			Enum  []any    `json:"enum"`
			AnyOf []choice `json:"anyOf"`
		} `json:"items"`
	}
	var s struct {
		Properties map[string]prop `json:"properties"`
	}
	b, _ := json.Marshal(schema)
	_ = json.Unmarshal(b, &s)
	out := map[string]any{}
	for name, p := range s.Properties {
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case len(p.OneOf) > 0:
			out[name] = p.OneOf[0].Const
		case p.Type == "array" && p.Items != nil && len(p.Items.Enum) > 0:
			out[name] = []any{p.Items.Enum[0]}
		case p.Type == "array" && p.Items != nil && len(p.Items.AnyOf) > 0:
			out[name] = []any{p.Items.AnyOf[0].Const}
		case p.Type == "boolean":
			out[name] = true
		case p.Type == "number" || p.Type == "integer":
			out[name] = 1
		default:
			out[name] = "e2e-elicited"
		}
	}
	return out
}

// referenceServer builds go-sdk's own conformance server, as shipped.
func referenceServer(t *testing.T) string {
	t.Helper()
	return testutil.GoBinary(t, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server", "everything-server")
}

// revisionUpstream is one upstream for the matrix: its config entry, the
// revision weft should pick with it, and the tool calls (name, arguments,
// text the answer must contain) that round-trip through the client.
type revisionUpstream struct {
	name, entry, upstreamRevision string
	calls                         [][3]string
}

func revisionUpstreams(t *testing.T) []revisionUpstream {
	ref := referenceServer(t)
	port := freePort(t)
	up := exec.Command(ref, "-http", fmt.Sprintf("127.0.0.1:%d", port))
	up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-up.Process.Pid, syscall.SIGKILL); _ = up.Wait() })
	waitPort(t, port)
	everything := npmBin(t, "mcp-server-everything")
	node := npmBin(t, "node")
	nodeDir := node[:strings.LastIndex(node, "/")]
	mrtr := [][3]string{
		{"ref__test_input_required_result_sampling", `{}`, "e2e-sampled"},
		{"ref__test_input_required_result_elicitation", `{}`, "Hello, e2e-elicited"},
		{"ref__test_input_required_result_list_roots", `{}`, "e2e-root"},
	}
	return []revisionUpstream{{
		// A stdio server has a session: weft speaks 2025-11-25 with it, so
		// its classic requests work, and its input-required results come as
		// classic requests too.
		name: "reference-stdio", entry: fmt.Sprintf("target = %q\nprefix = \"ref\"", ref), upstreamRevision: "2025-11-25",
		calls: append([][3]string{
			{"ref__test_sampling", `{"prompt":"hi"}`, "e2e-sampled"},
			{"ref__test_elicitation", `{"message":"who?"}`, "e2e-elicited"},
			// The answer is refused by the server's own SDK (it checks
			// the schema it sent, and refuses titled multi-select enums):
			// what matters is that the form reached the client intact.
			{"ref__test_elicitation_sep1330_enums", `{}`, ""},
		}, mrtr...),
	}, {
		// The reference server's HTTP default is stateless: no requests to
		// the client on legacy revisions, so weft speaks 2026-07-28.
		name: "reference-http", entry: fmt.Sprintf("target = \"http://127.0.0.1:%d\"\ntype = \"http\"\nprefix = \"ref\"", port), upstreamRevision: "2026-07-28",
		calls: mrtr,
	}, {
		name: "everything-npm", entry: fmt.Sprintf("target = %q\nenv = { PATH = %q }\nprefix = \"ev\"", everything, nodeDir+":"+os.Getenv("PATH")), upstreamRevision: "2025-11-25",
		calls: [][3]string{
			{"ev__trigger-sampling-request", `{"prompt":"hi","maxTokens":10}`, "e2e-sampled"},
			{"ev__trigger-elicitation-request", `{}`, "e2e-elicited"},
			{"ev__get-roots-list", `{}`, "e2e-root"},
		},
	}}
}

// TestRevisionMatrix connects a default go-sdk client (2026-07-28 first)
// and one pinned to 2025-11-25, over both faces, to weft fronting go-sdk's
// reference server (stdio and stateless HTTP) and server-everything: every
// client gets the revision it asked for, and sampling, elicitation and roots
// round trips work in every client × upstream revision pair.
func TestRevisionMatrix(t *testing.T) {
	for _, up := range revisionUpstreams(t) {
		for _, face := range []string{"http", "stdio"} {
			for _, pin := range []string{"", "2025-11-25"} {
				want := pin
				if want == "" {
					want = "2026-07-28"
				}
				t.Run(fmt.Sprintf("%s/%s/client-%s", up.name, face, want), func(t *testing.T) {
					e := newEnv(t)
					e.writeConfig(t, "[tools.mcp_servers.up]\n"+up.entry+"\n")
					ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
					defer cancel()
					seen := newSchemas()
					cs, url := connectFace(t, ctx, e, face, pin, seen)
					defer cs.Close()
					if got := cs.InitializeResult().ProtocolVersion; got != want {
						t.Errorf("negotiated %s with weft, want %s", got, want)
					}
					awaitToolListed(t, ctx, cs, seen, up.calls[0][0])
					if url != "" {
						if got := upstreamRevision(t, url); got != up.upstreamRevision {
							t.Errorf("weft speaks %s with the upstream, want %s", got, up.upstreamRevision)
						}
					}
					checkRevisionUpstream(t, ctx, cs, up, pin == "")
					if strings.HasPrefix(up.name, "reference") {
						checkProgressAndLogs(t, ctx, cs, seen, pin == "")
						// List changes first: with go-sdk v1.8.0 a 2026-07-28
						// client over stdio stops hearing of them once a
						// resource subscription has ended (directly too).
						checkToolListChanged(t, ctx, cs, seen)
						checkSubscription(t, ctx, cs, seen)
					}
					if up.name == "reference-stdio" && pin != "" && !strings.Contains(seen.String(), `"titledMulti":{"items":{"anyOf":[{"const":"value1"`) {
						t.Errorf("the titled multi-select form did not reach the client intact; forms seen:\n%s", seen)
					}
				})
			}
		}
	}
}

// connectFace connects the test client to weft over face ("http" or
// "stdio"), pinned to a revision or not.
func connectFace(t *testing.T, ctx context.Context, e *env, face, pin string, seen *schemas) (*mcp.ClientSession, string) {
	t.Helper()
	var transport mcp.Transport
	var url string
	if face == "http" {
		url = e.serve().url
		transport = &mcp.StreamableClientTransport{Endpoint: url}
	} else {
		cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp-server")
		cmd.Env = e.environ()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		transport = &mcp.CommandTransport{Command: cmd}
	}
	cs, err := revisionClient(seen).Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect over %s: %v", face, err)
	}
	return cs, url
}

// upstreamRevision is the revision weft negotiated with its one upstream,
// from the admin status of the weft serving url.
func upstreamRevision(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/admin/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Servers []struct {
			ProtocolVersion string `json:"protocol_version"`
		} `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || len(st.Servers) != 1 {
		t.Fatalf("admin status: %v %+v", err, st)
	}
	return st.Servers[0].ProtocolVersion
}

func checkRevisionUpstream(t *testing.T, ctx context.Context, cs *mcp.ClientSession, up revisionUpstream, newest bool) {
	names := toolNames(t, cs)
	for _, c := range up.calls {
		if newest && strings.Contains(c[0], "sep1330") {
			continue // the go-sdk client itself refuses a titled multi-select in an input-required result
		}
		if !has(names, c[0]) {
			t.Fatalf("%s not listed; tools: %v", c[0], names)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c[0], Arguments: json.RawMessage(c[1])})
		if err != nil {
			t.Errorf("%s: %v", c[0], err)
			continue
		}
		if c[2] == "" {
			continue
		}
		if text := resultText(res); res.IsError || !strings.Contains(text, c[2]) {
			t.Errorf("%s answered %q (error %v), want it to contain %q", c[0], text, res.IsError, c[2])
		}
	}
	if !strings.HasPrefix(up.name, "reference") {
		return
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	if err != nil || len(r.Contents) == 0 {
		t.Errorf("read test://static-text: %v %+v", err, r)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ref__test_simple_prompt"})
	if err != nil || len(p.Messages) == 0 {
		t.Errorf("get ref__test_simple_prompt: %v %+v", err, p)
	}
}

// checkProgressAndLogs calls the reference server's progress and logging
// tools: the client gets progress under its own token and the log messages
// at the level it asked for, in its revision's way (logging/setLevel on a
// legacy session, the request's _meta on 2026-07-28).
func checkProgressAndLogs(t *testing.T, ctx context.Context, cs *mcp.ClientSession, seen *schemas, newest bool) {
	t.Helper()
	params := &mcp.CallToolParams{Name: "ref__test_tool_with_logging", Arguments: map[string]any{}}
	if newest {
		params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
	} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	progress := &mcp.CallToolParams{Name: "ref__test_tool_with_progress", Arguments: map[string]any{}}
	progress.SetProgressToken("e2e-token")
	if _, err := cs.CallTool(ctx, progress); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tokens, logs := seen.await(wait, func(progress []any, logs []string) bool {
		return len(progress) >= 3 && slices.Contains(logs, "Tool execution completed")
	})
	if !strings.Contains(strings.Join(logs, "|"), "Tool execution completed") {
		t.Errorf("log messages relayed: %q, want the tool's three", logs)
	}
	if len(tokens) == 0 {
		t.Errorf("no progress relayed")
	}
	for _, tok := range tokens {
		if tok != "e2e-token" {
			t.Errorf("progress relayed under token %v, want the client's own", tok)
		}
	}
}

// checkSubscription subscribes to the reference server's watched resource,
// which it updates every few seconds, and waits for an update through weft.
func checkSubscription(t *testing.T, ctx context.Context, cs *mcp.ClientSession, seen *schemas) {
	t.Helper()
	const uri = "test://watched-resource"
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	select {
	case got := <-seen.updated:
		if got != uri {
			t.Errorf("update for %s, want %s", got, uri)
		}
	case <-ctx.Done():
		t.Errorf("no update of %s relayed", uri)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Errorf("unsubscribe %s: %v", uri, err)
	}
}

// TestParkedCallProgressReachesTheRetry: a 2026-07-28 client calls a legacy
// server's tool that asks for input and then reports progress and a log
// message. The client gets an input-required result, answers with its retry,
// and the progress and log message reach it on that retry, under its own
// token and at the level it named.
func TestParkedCallProgressReachesTheRetry(t *testing.T) {
	_, _, s := startForwarding(t)
	seen := newSchemas()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := revisionClient(seen).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "fwd__elicit-progress", Arguments: map[string]any{"who": "A"}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	params.SetProgressToken("parked-token")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || !strings.Contains(resultText(res), "elicited accept") {
		t.Fatalf("call: %v %+v", err, res)
	}
	wait, cancelWait := context.WithTimeout(ctx, 10*time.Second)
	defer cancelWait()
	tokens, logs := seen.await(wait, func(progress []any, logs []string) bool {
		return len(progress) >= 1 && slices.Contains(logs, "after-A")
	})
	if len(tokens) != 1 || tokens[0] != "parked-token" {
		t.Errorf("progress relayed under %v, want once under the client's token", tokens)
	}
	if !slices.Contains(logs, "after-A") {
		t.Errorf("log messages relayed: %q, want after-A", logs)
	}
}

// checkToolListChanged has the reference server add a tool: weft re-lists
// it, and the client hears of the change in its revision's way (on its
// session, or on its subscriptions/listen stream) and lists the new tool.
func checkToolListChanged(t *testing.T, ctx context.Context, cs *mcp.ClientSession, seen *schemas) {
	t.Helper()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ref__test_trigger_tool_change", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	const added = "ref____transient_tool_for_list_changed"
	for {
		select {
		case <-seen.tools:
		case <-ctx.Done():
			t.Fatalf("no tools/list_changed relayed; tools: %v", toolNames(t, cs))
		}
		if has(toolNames(t, cs), added) {
			return
		}
	}
}

// awaitToolListed waits until weft lists tool: weft connects its upstreams in
// the background and tells clients with tools/list_changed.
func awaitToolListed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, seen *schemas, tool string) {
	t.Helper()
	for !has(toolNames(t, cs), tool) {
		select {
		case <-seen.tools:
		case <-ctx.Done():
			t.Fatalf("%s never listed; tools: %v", tool, toolNames(t, cs))
		}
	}
}
