//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The floor of a relay at one call in flight: how little a gateway can add
// to a tools/call on this machine. BenchmarkFloorC1 measures, in one run and
// interleaved block by block, the direct HTTP path (go-sdk client → the
// benchserver's own Streamable HTTP endpoint), the smallest relay that can
// carry the same calls (floorRelay, below: one net/http server in a process
// of its own, nothing else) with a stdio and with an HTTP upstream, and
// `weft serve` with the same two upstreams. Latency at concurrency 1 in
// docs/guides/performance.md reads its figures.

var (
	floorMode   = flag.String("floor.relay", "", "run as the floor relay: stdio or http (set by BenchmarkFloorC1)")
	floorTarget = flag.String("floor.target", "", "the floor relay's upstream: a stdio server's path or an MCP URL")
)

// floorBlock is how many calls each path makes before the next path's turn,
// so that the machine's drifting load falls on every path alike.
const floorBlock = 100

// BenchmarkFloorC1 runs b.N calls through every path, one at a time, and
// reports each path's p50 and p90 (µs), its p50 added over direct-http and
// the relaying process's CPU per call. WEFT_FLOOR_BINS is a comma-separated
// list of weft binaries to measure side by side (for an A/B, named by their
// directories; default: the module's weft, built); WEFT_FLOOR_REV the
// revision the client pins (default 2025-11-25; "default" for go-sdk's
// default client).
//
//	go test -run '^$' -bench FloorC1 -benchtime 3000x ./bench/
func BenchmarkFloorC1(b *testing.B) {
	ctx := context.Background()
	_, paths := startFloorPaths(ctx, b, "stdio")
	for _, p := range paths {
		runCount(ctx, p.call, 300, 1) // warm up: connections, caches, each process's first calls
	}
	cpu0 := make([]time.Duration, len(paths))
	for i, p := range paths {
		cpu0[i] = p.cpu()
	}
	lat := inTurn(ctx, b, paths)
	for i, p := range paths {
		reportPath(b, p, lat[i], lat[0], p.cpu()-cpu0[i])
	}
}

// startFloorPaths builds weft and the upstream into a workspace that b's
// cleanup removes, and starts every path with the stdio floor of kind
// stdioMode (see floorPaths).
func startFloorPaths(ctx context.Context, b *testing.B, stdioMode string) (*workspace, []floorPath) {
	b.Helper()
	w, err := buildWorkspace(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.cleanup(false) })
	return w, floorPaths(ctx, b, w, floorRev(), stdioMode)
}

// floorRev is the revision the floor benchmarks' client pins:
// WEFT_FLOOR_REV, 2025-11-25 by default, "" (go-sdk's default client) for
// "default".
func floorRev() string {
	switch rev := os.Getenv("WEFT_FLOOR_REV"); rev {
	case "":
		return "2025-11-25"
	case "default":
		return ""
	default:
		return rev
	}
}

// inTurn makes b.N calls through each path, floorBlock at a time per path
// in turn, and returns each path's latencies, sorted. (The benchmark's
// ns/op is therefore a whole round's, every path's calls together.)
func inTurn(ctx context.Context, b *testing.B, paths []floorPath) [][]time.Duration {
	lat := make([][]time.Duration, len(paths))
	for done := 0; done < b.N; done += floorBlock {
		n := min(floorBlock, b.N-done)
		for i, p := range paths {
			lat[i] = append(lat[i], serial(ctx, b, p.call, n)...)
		}
	}
	for _, l := range lat {
		slices.Sort(l)
	}
	return lat
}

// reportPath reports p's p50 and p90 and, beside direct-http's latencies,
// its added p50 and the CPU its relay used per call.
func reportPath(b *testing.B, p floorPath, lat, direct []time.Duration, cpu time.Duration) {
	p50 := percentile(lat, 50)
	b.ReportMetric(us(p50), p.name+"-p50-µs")
	b.ReportMetric(us(percentile(lat, 90)), p.name+"-p90-µs")
	if p.relay != 0 {
		b.ReportMetric(us(p50-percentile(direct, 50)), p.name+"-added-µs")
		b.ReportMetric(us(cpu)/float64(b.N), p.name+"-cpu-µs")
	}
}

// floorPath is one way to the echo tool: its caller and the process that
// relays (none for direct-http).
type floorPath struct {
	name  string
	call  caller
	relay int // pid whose CPU is reported; 0 for none
}

func (p floorPath) cpu() time.Duration {
	if p.relay == 0 {
		return 0
	}
	d, _ := cpuTime(p.relay)
	return d
}

// floorPaths starts the upstreams, the floor relays and each weft, and
// connects a session to each; direct-http is first. stdioMode is the stdio
// floor's kind: "stdio" (one call at a time) or "stdio-mux" (concurrent).
func floorPaths(ctx context.Context, b *testing.B, w *workspace, rev, stdioMode string) []floorPath {
	b.Helper()
	up, upURL, err := w.startURL(ctx, "upstream-http", w.benchserver, "--http", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(up.stop)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var paths []floorPath
	add := func(name string, p *proc, url, tool string) {
		cs, err := connectHTTPAs(ctx, url, rev)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		fp := floorPath{name: name, call: echoCaller(cs, tool)}
		if p != nil {
			fp.relay = p.pid()
		}
		paths = append(paths, fp)
	}
	startFloor := func(mode, target string) (*proc, string) {
		p, url, err := w.startURL(ctx, "floor-"+mode, self, "-test.run", "^TestFloorRelayProcess$", "-floor.relay", mode, "-floor.target", target)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(p.stop)
		return p, url
	}
	add("direct-http", nil, upURL, "echo")
	p, url := startFloor(stdioMode, w.benchserver)
	add("floor-stdio", p, url, "echo")
	if rev == "" { // go-sdk's default client: the floor that converts its stateless requests (floorstateless_test.go)
		p, url = startFloor(strings.Replace(stdioMode, "stdio", "stdio-stateless", 1), w.benchserver)
		add("floor-stateless", p, url, "echo")
	}
	p, url = startFloor("http", upURL)
	add("floor-http", p, url, "echo")
	p, url = startFloor("tcp", upURL)
	add("floor-tcp", p, url, "echo")
	for _, bin := range floorBins(b, w) {
		label := filepath.Base(filepath.Dir(bin))
		if bin == w.weft {
			label = "weft"
		}
		for _, u := range []entry{{name: "bench", target: w.benchserver}, {name: "bench", target: upURL}} {
			kind := "stdio"
			if strings.HasPrefix(u.target, "http") {
				kind = "http"
			}
			name := label + "-" + kind
			cfg := w.path(name + ".toml")
			if err := writeConfig(cfg, []entry{u}); err != nil {
				b.Fatal(err)
			}
			wp, weftURL, err := w.startURL(ctx, name, bin, "--config", cfg, "--log-level", "warn", "serve", "--listen", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(wp.stop)
			if err := waitListed(ctx, adminBase(weftURL), 1, 1); err != nil {
				b.Fatal(err)
			}
			add(name, wp, weftURL, "bench__echo")
		}
	}
	return paths
}

// floorBins is WEFT_FLOOR_BINS, or the workspace's weft.
func floorBins(b *testing.B, w *workspace) []string {
	env := os.Getenv("WEFT_FLOOR_BINS")
	if env == "" {
		return []string{w.weft}
	}
	bins := strings.Split(env, ",")
	for _, bin := range bins {
		if _, err := os.Stat(bin); err != nil {
			b.Fatalf("WEFT_FLOOR_BINS: %v", err)
		}
	}
	return bins
}

// serial makes n calls one after another and returns their latencies.
func serial(ctx context.Context, b *testing.B, call caller, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := call(ctx); err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Since(start))
	}
	return out
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// TestFloorRelayProcess is the floor relay's process: BenchmarkFloorC1
// runs the test binary with -floor.relay set; otherwise it is skipped.
func TestFloorRelayProcess(t *testing.T) {
	if *floorMode == "" {
		t.Skip("the floor relay's process; started by BenchmarkFloorC1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var h http.Handler
	switch *floorMode {
	case "stdio":
		r, err := startStdioFloor(ctx, *floorTarget)
		if err != nil {
			t.Fatal(err)
		}
		h = r
	case "stdio-mux":
		r, err := startStdioMuxFloor(ctx, *floorTarget)
		if err != nil {
			t.Fatal(err)
		}
		h = r
	case "stdio-stateless", "stdio-stateless-mux":
		r, err := startStdioStatelessFloor(ctx, *floorTarget, *floorMode == "stdio-stateless-mux")
		if err != nil {
			t.Fatal(err)
		}
		h = r
	case "http":
		h = &httpFloor{target: *floorTarget, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: floorConns}}}
	case "tcp":
		h = &tcpFloor{target: *floorTarget, idle: make(chan *tcpConn, floorConns)}
	default:
		t.Fatalf("-floor.relay %q: want stdio, stdio-mux, stdio-stateless, stdio-stateless-mux, http or tcp", *floorMode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
}

// stdioFloor is the least a stdio relay does: the request's handler writes
// its body as one line to the child's stdin and reads the child's next
// response line from its stdout itself (no goroutine between), one call at
// a time.
type stdioFloor struct {
	mu   sync.Mutex
	in   io.Writer
	out  *bufio.Reader
	init json.RawMessage // the child's first initialize result, given to every later session
	done bool            // the child has had its initialized notification
}

func startStdioFloor(ctx context.Context, bin string) (*stdioFloor, error) {
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stderr = os.Stderr
	in, out, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	return &stdioFloor{in: in, out: out}, nil
}

func (f *stdioFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, env, ok := readPost(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.init != nil && env.Method == "initialize" || f.done && env.Method == "notifications/initialized" {
		f.handshake(w, env.ID)
		return
	}
	f.done = f.done || env.Method == "notifications/initialized"
	if _, err := f.in.Write(append(body, '\n')); err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if env.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	line, err := f.response()
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	f.answer(w, env.Method, line)
}

// floorEnvelope is what the stdio floors read of a request.
type floorEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// readPost reads a POST's body and envelope; anything else, or a body
// that is not JSON, it answers itself and returns ok false (no standalone
// stream; DELETE ends nothing).
func readPost(w http.ResponseWriter, r *http.Request) (body []byte, env floorEnvelope, ok bool) {
	if body, ok = postBody(w, r); !ok {
		return nil, env, false
	}
	if json.Unmarshal(body, &env) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return nil, env, false
	}
	return body, env, true
}

// postBody reads a POST's body; anything else it answers itself (405) and
// returns ok false, as it does a body it cannot read.
func postBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	return body, err == nil
}

// answer writes the child's response line to the request of method; the
// first initialize's result is kept for later sessions (handshake). The
// caller holds f.mu for an initialize.
func (f *stdioFloor) answer(w http.ResponseWriter, method string, line []byte) {
	if method == "initialize" {
		var res struct{ Result json.RawMessage }
		_ = json.Unmarshal(line, &res)
		f.init = res.Result
		w.Header().Set("Mcp-Session-Id", "floor")
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(line)
}

// handshake answers a later session's initialize with the child's first
// result (a stdio child has one session), and its initialized notification
// after the first with nothing.
func (f *stdioFloor) handshake(w http.ResponseWriter, id json.RawMessage) {
	if id == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Mcp-Session-Id", "floor")
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, f.init)
}

// response reads lines until one is a response (the echo server sends no
// requests or notifications during a call, but its handshake might).
func (f *stdioFloor) response() ([]byte, error) {
	for {
		line, err := f.out.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(line, []byte(`"method"`)) {
			return line, nil
		}
	}
}

// httpFloor is the least an HTTP relay does: the request's body and
// session headers are posted to the upstream and its answer copied back.
type httpFloor struct {
	target string
	client *http.Client
}

var floorHeaders = []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id"}

// copyHeaders copies the headers a relay passes on, each way.
func copyHeaders(dst, src http.Header) {
	for _, k := range floorHeaders {
		if v := src.Get(k); v != "" {
			dst.Set(k, v)
		}
	}
}

func (f *httpFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodDelete {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, f.target, r.Body)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	copyHeaders(req.Header, r.Header)
	resp, err := f.client.Do(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	copyHeaders(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// tcpFloor is httpFloor without net/http's client: the request's handler
// writes the POST on a kept connection to the upstream and reads the
// response there itself, so no goroutine of a transport stands between
// (the floor of an HTTP upstream behind net/http's server). Calls in
// flight at once each take a connection of their own from a pool of up to
// floorConns kept ones (one, at one call at a time).
type tcpFloor struct {
	target string
	idle   chan *tcpConn
}

// tcpConn is one kept connection to the upstream and its reader.
type tcpConn struct {
	conn net.Conn
	br   *bufio.Reader
}

// floorConns is how many upstream connections the HTTP floors keep, as many
// as weft keeps per upstream host.
const floorConns = 64

func (f *tcpFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := postBody(w, r)
	if !ok {
		return
	}
	req, err := http.NewRequest(http.MethodPost, f.target, bytes.NewReader(body))
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	copyHeaders(req.Header, r.Header)
	resp, data, err := f.roundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	copyHeaders(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(data)
}

// roundTrip writes req on a kept connection (a new one if none is idle)
// and reads the whole response; the connection is kept again unless it
// failed or the upstream closes it.
func (f *tcpFloor) roundTrip(req *http.Request) (*http.Response, []byte, error) {
	var c *tcpConn
	select {
	case c = <-f.idle:
	default:
		conn, err := net.Dial("tcp", req.URL.Host)
		if err != nil {
			return nil, nil, err
		}
		c = &tcpConn{conn: conn, br: bufio.NewReader(conn)}
	}
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		f.keep(c)
		return nil, nil, err
	}
	if _, err := c.conn.Write(buf.Bytes()); err != nil {
		_ = c.conn.Close()
		return nil, nil, err
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		_ = c.conn.Close()
		return nil, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.Close {
		_ = c.conn.Close()
		return resp, data, err
	}
	f.keep(c)
	return resp, data, nil
}

// keep returns c to the pool, or closes it if the pool is full.
func (f *tcpFloor) keep(c *tcpConn) {
	select {
	case f.idle <- c:
	default:
		_ = c.conn.Close()
	}
}
