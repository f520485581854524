package upstream

import (
	"context"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leveledPeer is a peer whose client set a log level on a legacy session.
type leveledPeer struct {
	Peer
	level mcp.LoggingLevel
}

func (p leveledPeer) LogLevel() mcp.LoggingLevel { return p.level }

// TestRequestMetaAddsNothingUnasked checks that weft forwards a client's
// _meta without the client's own per-request identity and adds no log level
// the client did not ask for: a legacy client's logging/setLevel becomes
// the level of a 2026-07-28 upstream's requests, nothing else does.
func TestRequestMetaAddsNothingUnasked(t *testing.T) {
	identity := mcp.Meta{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientInfo:         map[string]any{"name": "c"},
		mcp.MetaKeyClientCapabilities: map[string]any{},
		"custom":                      "kept",
	}
	logging := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	cases := []struct {
		name     string
		revision string
		caps     *mcp.ServerCapabilities
		peer     Peer
		in       mcp.Meta
		want     mcp.Meta
	}{
		{"legacy upstream, no meta", "2025-11-25", logging, nil, nil, nil},
		{"legacy upstream, leveled client", "2025-11-25", logging, leveledPeer{level: "info"}, nil, nil},
		{"newest upstream, client set no level", "2026-07-28", logging, leveledPeer{}, nil, nil},
		{"newest upstream, legacy client's level", "2026-07-28", logging, leveledPeer{level: "warning"}, nil, mcp.Meta{mcp.MetaKeyLogLevel: mcp.LoggingLevel("warning")}},
		{"newest upstream without logging", "2026-07-28", &mcp.ServerCapabilities{}, leveledPeer{level: "info"}, nil, nil},
		{"newest client names its own level", "2026-07-28", logging, leveledPeer{level: "debug"}, mcp.Meta{mcp.MetaKeyLogLevel: "error"}, mcp.Meta{mcp.MetaKeyLogLevel: "error"}},
		{"client identity is not forwarded", "2026-07-28", logging, nil, identity, mcp.Meta{"custom": "kept"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn := &Conn{info: Info{ProtocolVersion: c.revision, Capabilities: c.caps}}
			got := conn.requestMeta(c.peer, c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("requestMeta = %v, want %v", got, c.want)
			}
		})
	}
	if len(identity) != 4 {
		t.Errorf("the client's own _meta was modified: %v", identity)
	}
}

// TestRoundTripAnswersInputRequestsClassically checks that an upstream's
// input-required result is answered by asking a legacy peer the classic way
// and retried with the answers and the server's state, while a peer that
// takes such results itself gets the result as it is.
func TestRoundTripAnswersInputRequestsClassically(t *testing.T) {
	ask := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}, RequestState: "s1"}
	done := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}
	need := func(r *mcp.CallToolResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState }
	t.Run("legacy peer", func(t *testing.T) {
		var calls []string
		res, err := roundTrip(context.Background(), rootsPeer{}, func(answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
			calls = append(calls, state)
			if state == "" {
				return ask, nil
			}
			if lr, ok := answers["r"].(*mcp.ListRootsResult); !ok || lr.Roots[0].URI != "file:///root" {
				t.Errorf("retried with answers %v", answers)
			}
			return done, nil
		}, need)
		if err != nil || res != done || !reflect.DeepEqual(calls, []string{"", "s1"}) {
			t.Errorf("got %v, %v after calls with states %q", res, err, calls)
		}
	})
	t.Run("relaying peer", func(t *testing.T) {
		res, err := roundTrip(context.Background(), relayingPeer{}, func(mcp.InputResponseMap, string) (*mcp.CallToolResult, error) {
			return ask, nil
		}, need)
		if err != nil || res != ask {
			t.Errorf("got %v, %v; want the input-required result as it is", res, err)
		}
	})
}

type rootsPeer struct{ Peer }

func (rootsPeer) ListRoots(context.Context, *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///root"}}}, nil
}

type relayingPeer struct{ Peer }

func (relayingPeer) RelaysInputRequests() bool { return true }

type formPeer struct {
	Peer
	content map[string]any
}

func (p formPeer) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: p.content}, nil
}

// TestElicitRelaysTitledMultiSelectAndFillsDefaults checks that a form the
// SDK's own checks refuse (a titled multi-select enum) is relayed, and that
// the defaults the form declares fill the fields the answer leaves out,
// never overriding what the client answered.
func TestElicitRelaysTitledMultiSelectAndFillsDefaults(t *testing.T) {
	form := map[string]any{"type": "object", "properties": map[string]any{
		"titledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string",
			"anyOf": []any{map[string]any{"const": "v1", "title": "One"}}}},
		"name": map[string]any{"type": "string", "default": "John Doe"},
		"age":  map[string]any{"type": "integer", "default": 30},
	}}
	res, err := elicit(context.Background(), formPeer{content: map[string]any{"titledMulti": []any{"v1"}, "age": 7}},
		&mcp.ElicitParams{Message: "m", RequestedSchema: form})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"titledMulti": []any{"v1"}, "age": 7, "name": "John Doe"}
	if !reflect.DeepEqual(res.Content, want) {
		t.Errorf("content %v, want %v", res.Content, want)
	}
}
