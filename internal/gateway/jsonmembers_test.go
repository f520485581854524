package gateway

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readStatelessCallByMaps is readStatelessCall as the relay first wrote it,
// with encoding/json maps: the reference the one-walk reader must agree
// with wherever that one takes a request.
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
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"t"}}`, false},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["t"]}`, false},
		{"trailing bytes", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}} x`, false},
		{"leading space", ` {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`, false},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := readStatelessCall([]byte(c.body))
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
// client's tools/call (take), without the call.
func BenchmarkStatelessTake(b *testing.B) {
	body := []byte(defaultClientCall)
	var clients clientMetas
	b.ReportAllocs()
	for b.Loop() {
		c, ok := readStatelessCall(body)
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

// FuzzReadStatelessCallMatchesMaps holds the one-walk reader to the maps
// wherever it takes a request.
func FuzzReadStatelessCallMatchesMaps(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b","arguments":{"x":"}{]["},"_meta":{"k":1}}}`,
		`{"params":{"name":"t\u0041"},"id":"1","jsonrpc":"2.0","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":[1,{"a":"\\"}"}],"name":"t"}} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := readStatelessCall(body)
		if !ok {
			return
		}
		name, args, meta, refOK := readStatelessCallByMaps(body)
		if !refOK || !got.named(name) || string(got.args) != string(args) || string(got.meta) != string(meta) {
			t.Fatalf("body %q: read name %s args %s meta %s; the maps read %v %q %s %s", body, got.name, got.args, got.meta, refOK, name, args, meta)
		}
	})
}
