package tooldigest

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddDefinitions are tool definitions as an upstream may list them, each
// decoded the way weft's client decodes a tools/list result.
var oddDefinitions = []string{
	`{"name":"plain","inputSchema":{"type":"object"}}`,
	`{"inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}},"name":"key order","description":"keys out of order"}`,
	`{"name":"html <>&","description":"a <b>&amp;</b> c","inputSchema":{"type":"object","description":"<script>&"}}`,
	`{"name":"caf\u00e9","description":"\u00e9t\u00e9 \u2028 \u2029 \ud83d\ude00 \"q\" \\ \/ \n\t\b\f\r \u0001","inputSchema":{"type":"object","properties":{"\u00e9":{"const":"\u00e9"}}}}`,
	`{"name":"numbers","inputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":1.0,"maximum":1e3,"default":-0,"multipleOf":0.000001,"exclusiveMaximum":1e21,"x":12345678901234567890,"y":-1.5e-7}}}}`,
	`{"name":"nested","inputSchema":{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"},{"$ref":"#/$defs/d"}]}}}}},"$defs":{"d":{"enum":[1,"a",true,null,[],{}]}}}}`,
	`{"name":"annotated","annotations":{"title":"An <annotated> tool","readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":true},"inputSchema":{"type":"object"}}`,
	`{"name":"empty annotations","annotations":{},"inputSchema":{"type":"object"}}`,
	`{"name":"titled","title":"A Title","inputSchema":{"type":"object"}}`,
	`{"name":"output","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"type":"string"}}}}`,
	`{"name":"meta","_meta":{"z":1,"a":{"b":"<c>"}},"inputSchema":{"type":"object"}}`,
	`{"name":"everything","title":"T","description":"d","_meta":{"k":"v"},"annotations":{"title":"a"},"icons":[{"src":"https://example.com/i.png","mimeType":"image/png"}],"inputSchema":{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}},"outputSchema":{"type":"object"}}`,
	`{"name":"empty description","description":"","inputSchema":{"type":"object"}}`,
	`{"name":"no input schema"}`,
	`{"name":"null input schema","inputSchema":null}`,
	`{"name":"empty schema","inputSchema":{}}`,
	`{"name":"","inputSchema":{"type":"object"}}`,
	`{"name":"spaces",  "inputSchema" : { "type" : "object" , "properties" : { } } }`,
	`{"name":"quotes in values","description":"a \"name\":\"x\", }","inputSchema":{"type":"object","description":"\"inputSchema\":{} ,\"}"}}`,
	`{"name":"invalid utf8 \udc00 \ud800","inputSchema":{"type":"object"}}`,
}

// pinOf is what the upstream connection now does: encode the tool once
// and take the pin from those bytes.
func pinOf(t *testing.T, tool *mcp.Tool) string {
	t.Helper()
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatalf("encoding %s: %v", tool.Name, err)
	}
	pin, ok := PinOfDefinition(b)
	if !ok {
		t.Fatalf("%s: no pin from its encoding %s", tool.Name, b)
	}
	return pin
}

// TestPinOfDefinitionIsPin holds the pin taken from a tool's encoding to
// Pin (the formula of every pin on disk) over odd definitions, decoded as
// weft's client decodes them and also with their schemas kept raw.
func TestPinOfDefinitionIsPin(t *testing.T) {
	for _, def := range oddDefinitions {
		var tool mcp.Tool
		if err := json.Unmarshal([]byte(def), &tool); err != nil {
			t.Fatalf("%s: %v", def, err)
		}
		t.Run(tool.Name, func(t *testing.T) {
			if got, want := pinOf(t, &tool), Pin(&tool); got != want {
				t.Errorf("pin %s, want %s", got, want)
			}
			raw := tool
			for _, s := range []*any{&raw.InputSchema, &raw.OutputSchema} {
				if *s != nil {
					b, err := json.Marshal(*s)
					if err != nil {
						t.Fatal(err)
					}
					*s = json.RawMessage(b)
				}
			}
			if got, want := pinOf(t, &raw), Pin(&tool); got != want {
				t.Errorf("pin with raw schemas %s, want %s", got, want)
			}
		})
	}
}

// TestPinOfDefinitionRefusesOtherBytes: bytes that are not a tool's
// encoding give no pin, so the caller falls back to Pin.
func TestPinOfDefinitionRefusesOtherBytes(t *testing.T) {
	for _, b := range []string{``, `{}`, `[]`, `null`, `{"name":"x"}`, `{"name":"x","inputSchema":{}`, `{"name":"x","inputSchema":{}}}`, `{"name":"x" "inputSchema":1}`, `{"name":"x,"inputSchema":1}`} {
		if pin, ok := PinOfDefinition([]byte(b)); ok {
			t.Errorf("%s: pin %s, want none", b, pin)
		}
	}
}

// FuzzPinOfDefinition holds the pin taken from a tool's encoding to Pin
// for any definition that decodes as a tool, and any name and description.
func FuzzPinOfDefinition(f *testing.F) {
	for _, def := range oddDefinitions {
		f.Add(def, "n", "")
	}
	f.Add(`{"inputSchema":{"a":"}"}}`, "\"}", "\\\",")
	f.Fuzz(func(t *testing.T, def, name, desc string) {
		var tool mcp.Tool
		if json.Unmarshal([]byte(def), &tool) != nil {
			return
		}
		for _, named := range []mcp.Tool{tool, {Name: name, Description: desc, InputSchema: tool.InputSchema, Annotations: tool.Annotations, Meta: tool.Meta}} {
			b, err := json.Marshal(&named)
			if err != nil {
				return // not encodable (a NaN cannot be decoded, but be safe)
			}
			pin, ok := PinOfDefinition(b)
			if !ok {
				t.Fatalf("no pin from %s", b)
			}
			if want := Pin(&named); pin != want {
				t.Fatalf("pin of %s is %s, want %s", b, pin, want)
			}
		}
	})
}
