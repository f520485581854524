package gateway

import (
	"testing"
)

// The relay reads a message's envelope from the message check's walk;
// what it reads must be what go-sdk reads: keys matched exactly, strings
// decoded, ids as go-sdk makes them.
func TestCheckedEnvelopeIsWhatGoSDKReads(t *testing.T) {
	tests := []struct {
		name, body          string
		method, rpc, callee string
		id                  any // the relay's id; nil: none it takes
		other               bool
	}{
		{"a plain call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b","arguments":{"x":1}}}`,
			"tools/call", "2.0", "a__b", int64(7), false},
		{"escapes decoded", `{"jsonrpc":"2.0","id":"k\u0031","method":"tools\/call","params":{"name":"a__\u0062"}}`,
			"tools/call", "2.0", "a__b", "k1", false},
		{"keys differing in case are not go-sdk's", `{"JSONRPC":"2.0","ID":7,"Method":"tools/call","params":{"Name":"a__b"}}`,
			"", "", "", nil, true},
		{"another params key", `{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"name":"a__b","_meta":{}}}`,
			"tools/call", "2.0", "a__b", int64(-3), true},
		{"nested name keys are not the params'", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"x"}}}`,
			"tools/call", "2.0", "", int64(1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad, raw := checkEnvelope([]byte(tt.body))
			if bad != nil || raw == nil {
				t.Fatalf("checkEnvelope = %v, %v; want the walk's envelope", bad, raw)
			}
			env, ok := readEnvelope([]byte(tt.body), raw)
			if !ok || env.Method != tt.method || env.JSONRPC != tt.rpc || raw.paramsOther != tt.other {
				t.Errorf("envelope = %q %q other=%v ok=%v, want %q %q other=%v", env.Method, env.JSONRPC, raw.paramsOther, ok, tt.method, tt.rpc, tt.other)
			}
			if callee, _ := jsonText(raw.name); callee != tt.callee {
				t.Errorf("params name = %q, want %q", callee, tt.callee)
			}
			id, ok := relayID(env.ID)
			if (tt.id == nil) == ok || (ok && id.Raw() != tt.id) {
				t.Errorf("id = %#v (%v), want %#v", id.Raw(), ok, tt.id)
			}
			if walked, ok := readEnvelope([]byte(tt.body), nil); !ok || walked.Method != env.Method || string(walked.ID) != string(env.ID) {
				t.Errorf("walking the body again read %q %s, want %q %s", walked.Method, walked.ID, env.Method, env.ID)
			}
		})
	}
}
