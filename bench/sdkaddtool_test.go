//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A minimal reproduction, without weft, of what go-sdk v1.8.0's
// Server.AddTool costs per tool: the ~11–13 ms of each fan-in start that
// weft's face spends registering 10,000 tool stubs
// (docs/guides/performance.md, "Fan-in: weft's own start, the face and the
// digests", and "go-sdk's AddTool: the reproduction"). AddTool checks the
// input schema's type and then scans it for x-mcp-header annotations
// (validateParamHeaderAnnotations), by json.Marshal of the schema and a
// decode of the bytes; go-sdk has no call that adds many tools at once.
//
// Each op builds a plain go-sdk server (no session, so no list_changed is
// sent) and adds n tools with one input schema:
//
//   - weft-stub: the schema of weft's face stubs (gateway.stubSchema), a
//     *jsonschema.Schema setting both Type and Types, whose MarshalJSON
//     refuses it: the scan's cost is that refusal alone (the value
//     receiver's 792-byte copy to the heap, encoding/json's panic and
//     recover);
//   - object: the smallest schema that encodes, &jsonschema.Schema{Type:
//     "object"}: the scan encodes it and decodes `{"type":"object"}`;
//   - raw-echo: the benchserver's echo schema as raw JSON, as weft
//     registers a tool whose schema binds headers (and rawSchemaServer
//     serves): decoded twice, once for its type and once for the scan.
//
// go-sdk does not export the scan; scan-alone/* does its first step,
// json.Marshal of the schema, once per tool, which for weft-stub is all of
// it. The figures per tool are ns/tool, B/tool and allocs/tool.
//
//	go test -run '^$' -bench SDKAddTool -benchmem ./bench
func BenchmarkSDKAddTool(b *testing.B) {
	schemas := []struct {
		name   string
		schema any
	}{
		{"weft-stub", &jsonschema.Schema{Type: "object", Types: []string{"object"}}},
		{"object", &jsonschema.Schema{Type: "object"}},
		{"raw-echo", json.RawMessage(`{"additionalProperties":false,"properties":{"text":{"description":"text to echo","type":"string"}},"required":["text"],"type":"object"}`)},
	}
	for _, s := range schemas {
		for _, n := range []int{1000, 10000} {
			tools := stubTools(n, s.schema)
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				perTool(b, n, func() { addTools(tools) })
			})
		}
	}
	for _, s := range schemas[:2] {
		b.Run("scan-alone/"+s.name+"/10000", func(b *testing.B) {
			perTool(b, 10000, func() {
				for range 10000 {
					_, _ = json.Marshal(s.schema)
				}
			})
		})
	}
}

// stubTools are n tools named as a catalog names them, all with schema.
func stubTools(n int, schema any) []*mcp.Tool {
	tools := make([]*mcp.Tool, n)
	for i := range tools {
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("server_%02d__tool_%05d", i%10, i), InputSchema: schema}
	}
	return tools
}

// addTools registers tools with a new go-sdk server, one AddTool each, as
// weft's face does when a catalog arrives.
func addTools(tools []*mcp.Tool) {
	s := mcp.NewServer(&mcp.Implementation{Name: "face", Version: "1.0.0"}, nil)
	never := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for _, t := range tools {
		s.AddTool(t, never)
	}
}

// perTool runs op once per iteration and reports its time, bytes and
// allocations divided by the n tools it handles.
func perTool(b *testing.B, n int, op func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		op()
	}
	runtime.ReadMemStats(&after)
	tools := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/tools, "ns/tool")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/tools, "B/tool")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/tools, "allocs/tool")
}
