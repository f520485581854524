package gateway

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// readStatelessCallByMaps is readStatelessCall as the relay first wrote it,
// with encoding/json maps: the reference the reader of the message check's
// walk must agree with wherever that one takes a request.
func readStatelessCallByMaps(body []byte) (name string, args, meta json.RawMessage, ok bool) {
	var env map[string]json.RawMessage
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &env) != nil || len(env) != 4 ||
		string(env["jsonrpc"]) != `"2.0"` || string(env["method"]) != `"tools/call"` || !objectOf(env["params"]) || env["id"] == nil {
		return "", nil, nil, false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(env["params"], &keys) != nil || !onlyKeys(keys, "name", "arguments", "_meta") ||
		json.Unmarshal(keys["name"], &name) != nil {
		return "", nil, nil, false
	}
	return name, keys["arguments"], keys["_meta"], true
}

// readChecked is the relay's read of body as the face makes it, after the
// message check, with what the check's walk found; and, with nil for the
// walk, as the relay makes it of a body the check did not see. The two
// must agree.
func readChecked(t testing.TB, body []byte) (statelessCall, bool) {
	var env *rawEnvelope
	if bad, walked := checkEnvelope(body); bad == nil {
		env = walked
	}
	got, ok := readStatelessCall(body, env)
	alone, aloneOK := readStatelessCall(body, nil)
	if ok != aloneOK || ok && (string(got.id) != string(alone.id) || string(got.name) != string(alone.name) ||
		string(got.args) != string(alone.args) || string(got.meta) != string(alone.meta)) {
		t.Fatalf("body %q: read %v %+v after the check, %v %+v without it", body, ok, got, aloneOK, alone)
	}
	return got, ok
}

func TestReadStatelessCallReadsAsTheMapsDid(t *testing.T) {
	cases := []struct {
		name, body string
		taken      bool // false: left to go-sdk, though the maps might take it
	}{
		{"plain", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b","arguments":{"x":"}{]["},"_meta":{"k":1}}}`, true},
		{"spaces", "{ \"jsonrpc\" : \"2.0\" ,\n\"id\":\"s\",\t\"params\":{ \"name\" : \"a\\\"b\" , \"arguments\" : null },\"method\":\"tools/call\"}", true},
		{"no arguments", `{"params":{"name":"t"},"id":1,"jsonrpc":"2.0","method":"tools/call"}`, true},
		{"nested strings", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":["\\\"{",{"b":"}"}]},"name":"t"}}`, true},
		{"extra key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"x":1}`, false},
		{"extra params key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"s"}}`, false},
		{"no id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}`, false},
		{"no name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, false},
		{"name not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, false},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"t"}}`, false},
		{"upper-case key", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"t"}}`, false},
		{"escaped key", `{"jsonrpc":"2.0","id":1,"\u006dethod":"tools/call","params":{"name":"t"}}`, false},
		{"escaped params key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","\u0061rguments":{}}}`, false},
		{"non-ASCII key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"é":1}`, false},
		{"_meta without a name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{}}}`, false},
		{"nested params keys", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"name":"u","x":{"_meta":1}}}}`, true},
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"t"}}`, false},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["t"]}`, false},
		{"trailing bytes", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}} x`, false},
		{"leading space", ` {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`, false},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := readChecked(t, []byte(c.body))
			if ok != c.taken {
				t.Fatalf("taken = %v, want %v", ok, c.taken)
			}
			if !ok {
				return
			}
			name, args, meta, refOK := readStatelessCallByMaps([]byte(c.body))
			if !refOK || !got.named(name) || string(got.args) != string(args) || string(got.meta) != string(meta) {
				t.Fatalf("read name %s args %s meta %s; the maps read %v %q %s %s", got.name, got.args, got.meta, refOK, name, args, meta)
			}
		})
	}
}

// defaultClientCall is a tools/call as the default go-sdk client sends it
// (2026-07-28: the client's revision, capabilities and info in _meta).
const defaultClientCall = `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"v0.0.1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"bench__echo","arguments":{"text":"hello"}}}`

// BenchmarkStatelessTake is the relay's read of the default go-sdk
// client's tools/call (take), without the call, from what the message
// check's walk found.
func BenchmarkStatelessTake(b *testing.B) {
	body := []byte(defaultClientCall)
	_, env := checkEnvelope(body)
	var clients clientMetas
	b.ReportAllocs()
	for b.Loop() {
		c, ok := readStatelessCall(body, env)
		if !ok || !c.named("bench__echo") {
			b.Fatal("not taken")
		}
		if _, ok := relayID(c.id); !ok {
			b.Fatal("bad id")
		}
		if who, ok := clients.read(c.meta); !ok || who.meta == nil {
			b.Fatal("meta not read")
		}
	}
}

// BenchmarkStatelessTakeByMaps is BenchmarkStatelessTake with the map
// decodes the one walk replaced, and the _meta map built per call.
func BenchmarkStatelessTakeByMaps(b *testing.B) {
	body := []byte(defaultClientCall)
	var clients clientMetas
	b.ReportAllocs()
	for b.Loop() {
		name, _, meta, ok := readStatelessCallByMaps(body)
		if !ok || name != "bench__echo" {
			b.Fatal("not taken")
		}
		if _, ok := relayID(json.RawMessage("12")); !ok {
			b.Fatal("bad id")
		}
		who, ok := clients.read(meta)
		if !ok {
			b.Fatal("meta not read")
		}
		metaSink = mcp.Meta{mcp.MetaKeyProtocolVersion: who.version, mcp.MetaKeyClientCapabilities: who.caps, mcp.MetaKeyClientInfo: who.info}
	}
}

var metaSink mcp.Meta

// BenchmarkStatelessCheckAndTake is the face's message check of the
// default go-sdk client's tools/call and the relay's read of it.
func BenchmarkStatelessCheckAndTake(b *testing.B) {
	body := []byte(defaultClientCall)
	var clients clientMetas
	b.ReportAllocs()
	for b.Loop() {
		bad, env := checkEnvelope(body)
		if bad != nil {
			b.Fatal("refused")
		}
		c, ok := readStatelessCall(body, env)
		if !ok || !c.named("bench__echo") {
			b.Fatal("not taken")
		}
		if _, ok := clients.read(c.meta); !ok {
			b.Fatal("meta not read")
		}
	}
}

// BenchmarkCheckMessageOfTheDefaultClient is the face's message check
// (keyscan.go) of the default client's tools/call, whose _meta holds
// a dozen keys.
func BenchmarkCheckMessageOfTheDefaultClient(b *testing.B) {
	body := []byte(defaultClientCall)
	b.ReportAllocs()
	for b.Loop() {
		if checkMessage(body) != nil {
			b.Fatal("refused")
		}
	}
}

// FuzzReadStatelessCallMatchesMaps holds the reader of the message check's
// walk to the maps wherever it takes a request, and to itself without the
// check (readChecked).
func FuzzReadStatelessCallMatchesMaps(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b","arguments":{"x":"}{]["},"_meta":{"k":1}}}`,
		`{"params":{"name":"t\u0041"},"id":"1","jsonrpc":"2.0","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":[1,{"a":"\\"}"}],"name":"t"}} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := readChecked(t, body)
		if !ok {
			return
		}
		name, args, meta, refOK := readStatelessCallByMaps(body)
		if !refOK || !got.named(name) || string(got.args) != string(args) || string(got.meta) != string(meta) {
			t.Fatalf("body %q: read name %s args %s meta %s; the maps read %v %q %s %s", body, got.name, got.args, got.meta, refOK, name, args, meta)
		}
	})
}

// TestReboundReadsHostsAsGoSDK: a request to a loopback address is
// rebound unless its Host is "localhost" or a loopback IP as go-sdk reads
// them, and the check of a plain request allocates nothing.
func TestReboundReadsHostsAsGoSDK(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7000}
	cases := []struct {
		local   net.Addr
		host    string
		rebound bool
	}{
		{loopback, "127.0.0.1:7000", false},
		{loopback, "localhost:7000", false},
		{loopback, "[::1]:7000", false},
		{loopback, "::1", false},
		{loopback, "localhost", false},
		{loopback, "10.9.8.7:7000", true},
		{loopback, "foo.localhost:7000", true},
		{loopback, "LOCALHOST:7000", true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 7000}, "example.com", true},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 7000}, "example.com", false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, "example.com", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = c.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, c.local))
		if got := rebound(r); got != c.rebound {
			t.Errorf("%v, Host %s: rebound = %v, want %v", c.local, c.host, got, c.rebound)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Host = "127.0.0.1:7000"
	r.Header.Set("Accept", "application/json, text/event-stream")
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(loopback)))
	if n := testing.AllocsPerRun(100, func() {
		if !sdkTakesPost(r, true, nil) {
			t.Fatal("refused")
		}
	}); n != 0 {
		t.Errorf("the POST checks allocated %v times per request", n)
	}
}

// TestStatelessTakeAllocatesTwice: the relay's read of the default
// client's call, once its client's _meta is known, allocates the call's
// state and the id: go-sdk's MakeID takes an integer id as a float64 in an
// interface, which escapes (and boxes an integer past 255 once more).
func TestStatelessTakeAllocatesTwice(t *testing.T) {
	g := New(hub.New(hub.Options{Reserved: BuiltinNames}), Options{})
	g.listedTools.Store(&map[string]bool{"bench__echo": true})
	sr := g.relayStateless(nil, &mcp.StreamableHTTPOptions{}).(*statelessRelay)
	body := []byte(defaultClientCall)
	_, env := checkEnvelope(body)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Mcp-Name", "bench__echo")
	r.Header.Set("Mcp-Protocol-Version", newestVersion)
	take := func() {
		if _, _, ok := sr.take(r, body, env); !ok {
			t.Fatal("not taken")
		}
	}
	take()
	if n := testing.AllocsPerRun(100, take); n != 2 {
		t.Errorf("take allocated %v times per request, want 2", n)
	}
}
