package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/audit"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
	"go.opentelemetry.io/otel/trace"
)

// secrets masks one known secret, as policy.Secrets does.
type secrets string

func (s secrets) Redact(text string) string { return strings.ReplaceAll(text, string(s), "***") }

func open(t *testing.T, opts audit.Options) *audit.Log {
	t.Helper()
	if opts.File == "" {
		opts.File = filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	}
	l, err := audit.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func toolCall(args string) *hub.Call {
	return &hub.Call{
		Caller: hub.Caller{Face: "http", Session: "S1", Client: "claude-code"}, Server: "gh", Tool: "gh__create_issue",
		Args: json.RawMessage(args), Start: time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC), Duration: 1500 * time.Microsecond,
		Outcome: hub.OutcomeError, Err: errors.New("upstream said: token ghp_SECRET123 rejected"),
	}
}

func TestToolCallLineHasDigestNotArguments(t *testing.T) {
	l := open(t, audit.Options{Redactor: secrets("ghp_SECRET123")})
	l.CallEnded(context.Background(), toolCall(`{"title":"hello","token":"ghp_SECRET123"}`))
	got := testutil.ReadJSONLines(t, l.Path())
	if len(got) != 1 {
		t.Fatalf("%d lines, want 1", len(got))
	}
	rec := got[0]
	want := map[string]any{"kind": "tool_call", "face": "http", "session": "S1", "client": "claude-code", "server": "gh",
		"tool": "gh__create_issue", "duration_ms": 1.5, "outcome": "error", "time": "2026-11-23T17:00:00Z",
		"args_sha256": ""}
	for k, v := range want {
		if k == "args_sha256" {
			if s, _ := rec[k].(string); len(s) != 64 {
				t.Errorf("args_sha256 %v, want a hex SHA-256", rec[k])
			}
			continue
		}
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	if _, ok := rec["args"]; ok {
		t.Error("arguments logged without log_arguments")
	}
	if strings.Contains(rec["error"].(string), "ghp_SECRET123") {
		t.Errorf("secret in the error text: %v", rec["error"])
	}
	st, err := os.Stat(l.Path())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("audit file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if dir, _ := os.Stat(filepath.Dir(l.Path())); dir.Mode().Perm() != 0o700 {
		t.Errorf("audit directory mode %v, want 0700", dir.Mode().Perm())
	}
}

func TestLogArgumentsMasksSecrets(t *testing.T) {
	l := open(t, audit.Options{LogArguments: true, Redactor: secrets("ghp_SECRET123")})
	l.CallEnded(context.Background(), toolCall(`{"title":"hello","token":"ghp_SECRET123"}`))
	args, _ := testutil.ReadJSONLines(t, l.Path())[0]["args"].(map[string]any)
	if args["title"] != "hello" || args["token"] != "***" {
		t.Fatalf("args logged as %v, want the title and the token masked", args)
	}
}

func TestConfigChangeLine(t *testing.T) {
	l := open(t, audit.Options{Now: func() time.Time { return time.Unix(0, 0) }, Redactor: secrets("hunter22")})
	l.ConfigChanged(audit.Change{Source: "reload", Added: []string{"a"}, Removed: []string{"b"},
		Failed: map[string]string{"a": "auth hunter22 refused"}})
	rec := testutil.ReadJSONLines(t, l.Path())[0]
	ch, _ := rec["change"].(map[string]any)
	if rec["kind"] != "config_change" || ch["source"] != "reload" || ch["added"].([]any)[0] != "a" ||
		ch["failed"].(map[string]any)["a"] != "auth *** refused" {
		t.Fatalf("config change logged as %v", rec)
	}
}

func TestRotatesBySizeKeepingMaxFiles(t *testing.T) {
	l := open(t, audit.Options{MaxBytes: 600, MaxFiles: 2})
	for range 20 {
		l.CallEnded(context.Background(), toolCall(`{}`))
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{l.Path(), l.Path() + ".1", l.Path() + ".2"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if st.Size() > 600 || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v; want at most 600 bytes, 0600", p, st.Size(), st.Mode().Perm())
		}
	}
	if _, err := os.Stat(l.Path() + ".3"); err == nil {
		t.Error("more rotated files kept than max_files")
	}
}

func TestExistingFileIsRestrictedTo0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open(t, audit.Options{File: path})
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestToolCallCarriesTheTraceID(t *testing.T) {
	l := open(t, audit.Options{TraceIDs: true})
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	l.CallEnded(ctx, toolCall(`{}`))
	l.CallEnded(context.Background(), toolCall(`{}`))
	recs := testutil.ReadJSONLines(t, l.Path())
	if recs[0]["trace_id"] != tid.String() || recs[1]["trace_id"] != nil {
		t.Fatalf("trace ids %v and %v, want the span's and none", recs[0]["trace_id"], recs[1]["trace_id"])
	}
}

// TestNoTraceIDWithoutTracing: with tracing off no call's context is
// searched for a trace, and no line carries one.
func TestNoTraceIDWithoutTracing(t *testing.T) {
	l := open(t, audit.Options{})
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	l.CallEnded(ctx, toolCall(`{}`))
	if recs := testutil.ReadJSONLines(t, l.Path()); recs[0]["trace_id"] != nil {
		t.Fatalf("trace id %v, want none with tracing off", recs[0]["trace_id"])
	}
}
