// Command perfsplit reads `perf script` output of one weft process and says
// where its CPU went, by the kind of work a sample belongs to: go-sdk's
// JSON decode and encode, its Streamable HTTP server (sessions, the SSE
// response stream), its other JSON-RPC machinery, net/http, garbage
// collection, the Go scheduler, the kernel (syscalls, network, wake-ups)
// and weft's own code. Allocation is charged to the code that allocated.
//
//	perf record -F 999 -g -p PID -o perf.data -- sleep 15
//	perf script -i perf.data -F comm,tid,ip,sym,dso | go run ./bench/perfsplit
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	shares, total, err := split(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfsplit: "+err.Error())
		os.Exit(1)
	}
	report(os.Stdout, shares, total)
}

// The kinds, in the order they are printed.
const (
	kindJSON     = "go-sdk JSON decode/encode (segmentio decoder, encoding/json)"
	kindStream   = "go-sdk Streamable HTTP server (sessions, SSE stream)"
	kindSDK      = "go-sdk JSON-RPC dispatch and client"
	kindHTTP     = "net/http, bufio, net (Go side)"
	kindGC       = "GC (mark workers, assists, sweep)"
	kindSched    = "Go scheduler and other runtime"
	kindKernel   = "kernel (syscalls, network, futex, scheduling)"
	kindWeft     = "weft's own code"
	kindStdOther = "other Go standard library"
)

var kinds = []string{kindJSON, kindStream, kindSDK, kindHTTP, kindGC, kindSched, kindKernel, kindWeft, kindStdOther}

// split counts samples by kind. A sample is a header line followed by its
// frames, leaf first, and a blank line.
func split(r io.Reader) (map[string]int, int, error) {
	shares := map[string]int{}
	total := 0
	var frames []string
	flush := func() {
		if len(frames) > 0 {
			shares[classify(frames)]++
			total++
		}
		frames = frames[:0]
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			frames = append(frames, symbol(line))
		default:
			flush() // a header starts the next sample
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("read perf script output: %w", err)
	}
	return shares, total, nil
}

// kernelMark starts the symbol of a kernel frame.
const kernelMark = "[k] "

// symbol takes "  addr sym (dso)" to sym, marked when the dso is the kernel.
func symbol(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return ""
	}
	sym := strings.Join(f[1:], " ")
	if i := strings.LastIndex(sym, " ("); i > 0 {
		if strings.HasPrefix(sym[i+2:], "[kernel") {
			return kernelMark + sym[:i]
		}
		sym = sym[:i]
	}
	return sym
}

// classify names the kind of one sample from its frames, leaf first.
func classify(frames []string) string {
	for _, f := range frames {
		if strings.HasPrefix(f, "runtime.gcBgMarkWorker") || strings.HasPrefix(f, "runtime.gcAssistAlloc") ||
			strings.HasPrefix(f, "runtime.bgsweep") || strings.HasPrefix(f, "runtime.bgscavenge") || f == "runtime.gcStart" {
			return kindGC
		}
	}
	if isKernel(frames[0]) {
		return kindKernel
	}
	std := false
	for _, f := range frames {
		if k, ok := kindOf(f); ok {
			return k
		}
		std = std || isStd(f)
	}
	if std {
		return kindStdOther
	}
	return kindSched
}

// isStd reports whether f is a standard-library frame outside the runtime.
func isStd(f string) bool {
	return !strings.HasPrefix(f, "runtime.") && !strings.HasPrefix(f, "internal/runtime") && strings.ContainsAny(f, "./") &&
		!strings.HasPrefix(f, "[unknown]") && !isKernel(f)
}

// kindOf places a frame that owns its work; runtime frames and helper
// packages (context, reflect, io, time, sync, strconv, …) say nothing, so
// the search goes on towards the root and charges their work to the code
// that called them.
func kindOf(f string) (string, bool) {
	switch {
	case strings.HasPrefix(f, "github.com/segmentio/"), strings.HasPrefix(f, "encoding/json."),
		strings.Contains(f, "go-sdk/internal/json."), strings.Contains(f, "jsonrpc2.EncodeMessage"),
		strings.Contains(f, "jsonrpc2.DecodeMessage"), strings.Contains(f, "UnmarshalJSON"), strings.Contains(f, "MarshalJSON"):
		return kindJSON, true
	case strings.Contains(f, "go-sdk/mcp.(*streamable"), strings.Contains(f, "go-sdk/mcp.(*StreamableHTTPHandler"),
		strings.Contains(f, "go-sdk/mcp.(*stream)"), strings.Contains(f, "go-sdk/mcp.writeEvent"):
		return kindStream, true
	case strings.HasPrefix(f, "github.com/modelcontextprotocol/go-sdk/"):
		return kindSDK, true
	case strings.HasPrefix(f, "github.com/weft-dev/weft/"):
		return kindWeft, true
	case strings.HasPrefix(f, "net/http."), strings.HasPrefix(f, "net."), strings.HasPrefix(f, "bufio."), strings.HasPrefix(f, "internal/poll."):
		return kindHTTP, true
	case strings.HasPrefix(f, "syscall."), strings.HasPrefix(f, "internal/runtime/syscall"):
		return kindKernel, true
	}
	return "", false
}

// isKernel reports whether a frame is in the kernel.
func isKernel(f string) bool { return strings.HasPrefix(f, kernelMark) }

// report writes one line per kind, largest first.
func report(w io.Writer, shares map[string]int, total int) {
	if total == 0 {
		fmt.Fprintln(w, "no samples")
		return
	}
	order := append([]string(nil), kinds...)
	sort.SliceStable(order, func(i, j int) bool { return shares[order[i]] > shares[order[j]] })
	for _, k := range order {
		fmt.Fprintf(w, "%5.1f%%  %s\n", 100*float64(shares[k])/float64(total), k)
	}
	fmt.Fprintf(w, "%d samples\n", total)
}
