package main

import (
	"bytes"
	"strings"
	"testing"
)

// frame renders one perf script frame line.
func frame(sym, dso string) string { return "\t          d21ca5 " + sym + " (" + dso + ")\n" }

func TestClassifyChargesWorkToItsOwner(t *testing.T) {
	const bin, kern = "/tmp/weft", "[kernel.kallsyms]"
	tests := []struct {
		name   string
		frames []string // leaf first
		want   string
	}{
		{"allocation in the SDK's decoder is JSON", []string{
			frame("runtime.memclrNoHeapPointers", bin), frame("runtime.mallocgc", bin),
			frame("github.com/segmentio/encoding/json.(*Decoder).readValue", bin),
			frame("github.com/modelcontextprotocol/go-sdk/internal/json.Unmarshal", bin),
			frame("github.com/weft-dev/weft/internal/upstream.(*Conn).CallTool", bin)}, kindJSON},
		{"a GC assist is GC wherever it happens", []string{
			frame("runtime.scanobject", bin), frame("runtime.gcAssistAlloc", bin), frame("runtime.mallocgc", bin),
			frame("github.com/segmentio/encoding/json.(*Decoder).readValue", bin)}, kindGC},
		{"a kernel leaf is the kernel", []string{
			frame("finish_task_switch.isra.0", kern), frame("syscall.write", bin),
			frame("github.com/weft-dev/weft/internal/upstream.(*Conn).CallTool", bin)}, kindKernel},
		{"helpers are charged to weft when weft called them", []string{
			frame("context.(*cancelCtx).propagateCancel", bin), frame("context.WithTimeout", bin),
			frame("github.com/weft-dev/weft/internal/hub.(*Hub).guarded", bin),
			frame("github.com/modelcontextprotocol/go-sdk/mcp.(*Server).callTool", bin)}, kindWeft},
		{"the stateful HTTP server", []string{
			frame("runtime.newobject", bin),
			frame("github.com/modelcontextprotocol/go-sdk/mcp.(*streamableServerConn).servePOST", bin)}, kindStream},
		{"net/http", []string{frame("bufio.(*Writer).Flush", bin), frame("net/http.(*conn).serve", bin)}, kindHTTP},
		{"runtime only is the scheduler", []string{frame("runtime.findRunnable", bin), frame("runtime.schedule", bin)}, kindSched},
		{"standard library with no owner", []string{frame("time.goFunc", bin), frame("runtime.goexit.abi0", bin)}, kindStdOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := "weft 27355 \n" + strings.Join(tc.frames, "") + "\n"
			shares, total, err := split(strings.NewReader(in))
			if err != nil || total != 1 || shares[tc.want] != 1 {
				t.Errorf("split = %v, %d samples, %v; want one sample of %q", shares, total, err, tc.want)
			}
		})
	}
}

func TestReportShowsSharesLargestFirst(t *testing.T) {
	var b bytes.Buffer
	report(&b, map[string]int{kindGC: 1, kindJSON: 3}, 4)
	out := b.String()
	if !strings.HasPrefix(out, " 75.0%  "+kindJSON) || !strings.Contains(out, " 25.0%  "+kindGC) || !strings.Contains(out, "4 samples") {
		t.Errorf("output:\n%s", out)
	}
}
