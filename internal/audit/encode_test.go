package audit

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// TestEncodeIsJSONMarshal: the line written per call is byte for byte what
// json.Marshal writes, whichever way encode takes.
func TestEncodeIsJSONMarshal(t *testing.T) {
	at := time.Date(2026, 11, 23, 17, 0, 0, 123456789, time.UTC)
	call := Record{Time: at, Kind: "tool_call", Caller: hub.Caller{Face: "http", Session: "4HJ2", Agent: "coder", Client: "claude-code", User: "ann"},
		Server: "gh", Tool: "gh__create_issue", DurationMS: 212.4, Outcome: hub.OutcomeOK, ArgsSHA256: "9f2c", TraceID: "4bf9"}
	with := func(edit func(*Record)) Record { r := call; edit(&r); return r }
	for name, rec := range map[string]Record{
		"every field":         call,
		"zero fields omitted": {Time: at, Kind: "tool_call"},
		"zero time":           {Kind: "tool_call", Server: "gh"},
		"whole second":        with(func(r *Record) { r.Time = at.Truncate(time.Second) }),
		"other zone":          with(func(r *Record) { r.Time = at.In(time.FixedZone("x", 5*3600+1800)) }),
		"year past 9999":      with(func(r *Record) { r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }),
		"year before 0":       with(func(r *Record) { r.Time = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }),
		"year past 9999 in zone": with(func(r *Record) {
			r.Time = time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC).In(time.FixedZone("x", 2*3600))
		}),
		"zone 23:59 ahead":        with(func(r *Record) { r.Time = at.In(time.FixedZone("x", 24*3600-60)) }),
		"zone 24 hours ahead":     with(func(r *Record) { r.Time = at.In(time.FixedZone("x", 24*3600)) }),
		"zone 24 hours behind":    with(func(r *Record) { r.Time = at.In(time.FixedZone("x", -24*3600)) }),
		"zone 100 hours ahead":    with(func(r *Record) { r.Time = at.In(time.FixedZone("x", 100*3600)) }),
		"zone with seconds":       with(func(r *Record) { r.Time = at.In(time.FixedZone("x", -(3*3600 + 30*60 + 17))) }),
		"NaN duration":            with(func(r *Record) { r.DurationMS = math.NaN() }),
		"infinite duration":       with(func(r *Record) { r.DurationMS = math.Inf(-1) }),
		"line separators":         with(func(r *Record) { r.User = "a\u2028b\u2029c" }),
		"invalid UTF-8 tool":      with(func(r *Record) { r.Tool = "t\xc3(" }),
		"control char in server":  with(func(r *Record) { r.Server = "s\x1f" }),
		"empty kind":              with(func(r *Record) { r.Kind = "" }),
		"kind to escape":          with(func(r *Record) { r.Kind = "<k>" }),
		"tiny duration":           with(func(r *Record) { r.DurationMS = 0.001 }),
		"duration in e form":      with(func(r *Record) { r.DurationMS = 1e-7 }),
		"huge duration":           with(func(r *Record) { r.DurationMS = 3e21 }),
		"negative duration":       with(func(r *Record) { r.DurationMS = -2.5 }),
		"error to escape":         with(func(r *Record) { r.Error = "bad \"quote\" \\ <b>&\n\t\x01 é \u2028 \xff" }),
		"html in a tool name":     with(func(r *Record) { r.Tool = "a<b>&c" }),
		"non-ASCII client":        with(func(r *Record) { r.Client = "クライアント" }),
		"DEL byte":                with(func(r *Record) { r.Session = "a\x7fb" }),
		"logged arguments":        with(func(r *Record) { r.Args = json.RawMessage(`{"a": "<x>", "b":[1, 2]}`) }),
		"config change":           {Time: at, Kind: "config_change", Change: &Change{Source: "reload", Added: []string{"a"}, Failed: map[string]string{"a": "x"}}},
		"unknown tool, no server": with(func(r *Record) { r.Server, r.Outcome, r.Error = "", hub.OutcomeUnavailable, "unknown tool x" }),
	} {
		t.Run(name, func(t *testing.T) {
			want, wantErr := json.Marshal(rec)
			got, err := encode(nil, &rec)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("encode's error %v, json.Marshal's %v", err, wantErr)
			}
			if string(got) != string(want)+"\n" {
				t.Fatalf("encode wrote\n%s\njson.Marshal writes\n%s", got, want)
			}
		})
	}
}

// TestEncodeKnowsEveryField: a field added to Record (or to hub.Caller)
// must be added to appendToolCall too, or its lines would lack it.
func TestEncodeKnowsEveryField(t *testing.T) {
	known := []string{"time", "kind", "face", "session", "agent", "client", "user", "server", "tool", "duration_ms",
		"outcome", "error", "args_sha256", "trace_id", "args", "change"}
	var names []string
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for f := range rt.Fields() {
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			names = append(names, name)
		}
	}
	walk(reflect.TypeFor[Record]())
	if !slices.Equal(names, known) {
		t.Fatalf("Record's fields are %v; appendToolCall writes %v: teach it the new ones", names, known)
	}
}
