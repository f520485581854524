//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The floor of a relay at 64 calls in flight: the throughput, CPU per call
// and peak RSS of the smallest relays of floor_test.go beside direct-http
// and `weft serve`, so that each c=64 goal row can be set against what any
// relay reaches on this machine. The HTTP floors keep a pool of upstream
// connections (floorConns); the stdio floor becomes stdioMuxFloor, which
// has a reader of the child's stdout hand each response to its call by id,
// as any relay with more than one call in flight on one pipe must.

// floorBlock64 is how many calls each path makes at c=64 before the next
// path's turn.
const floorBlock64 = 1000

// floorConc is the concurrency of BenchmarkFloorC64, the bench's c=64.
const floorConc = 64

// BenchmarkFloorC64 runs b.N calls through every path of BenchmarkFloorC1
// at 64 in flight, floorBlock64 calls per path in turn, and reports each
// path's calls/s, its ratio to direct-http's, and for a relay its CPU per
// call and peak RSS (VmHWM). WEFT_FLOOR_BINS and WEFT_FLOOR_REV as there.
//
//	go test -run '^$' -bench FloorC64 -benchtime 20000x ./bench/
func BenchmarkFloorC64(b *testing.B) {
	ctx := context.Background()
	w, paths := startFloorPaths(ctx, b, "stdio-mux")
	for _, p := range paths {
		runCount(ctx, p.call, floorBlock64, floorConc) // warm up: every pooled connection, each process's heap
	}
	cpu0, kid0 := make([]time.Duration, len(paths)), make([]time.Duration, len(paths))
	kids := make([]floorPath, len(paths)) // a stdio relay's child, whose CPU is reported beside the relay's
	for i, p := range paths {
		if p.relay != 0 {
			kids[i].relay = childOf(p.relay, w.benchserver)
		}
		cpu0[i], kid0[i] = p.cpu(), kids[i].cpu()
	}
	walls := make([]time.Duration, len(paths))
	for done := 0; done < b.N; done += floorBlock64 {
		n := min(floorBlock64, b.N-done)
		for i, p := range paths {
			s := runCount(ctx, p.call, n, floorConc)
			if s.failed > 0 {
				b.Fatalf("%s: %d of %d calls failed: %v", p.name, s.failed, n, s.errs)
			}
			walls[i] += s.wall
		}
	}
	direct := float64(b.N) / walls[0].Seconds()
	for i, p := range paths {
		rate := float64(b.N) / walls[i].Seconds()
		b.ReportMetric(rate, p.name+"-calls/s")
		if p.relay == 0 {
			continue
		}
		b.ReportMetric(rate/direct, p.name+"-ratio")
		b.ReportMetric(us(p.cpu()-cpu0[i])/float64(b.N), p.name+"-cpu-µs")
		if kids[i].relay != 0 {
			b.ReportMetric(us(kids[i].cpu()-kid0[i])/float64(b.N), p.name+"-child-cpu-µs")
		}
		if _, peak, err := rss(p.relay); err == nil {
			b.ReportMetric(peak, p.name+"-peak-MB")
		}
		if file, err := rssFile(p.relay); err == nil {
			b.ReportMetric(file, p.name+"-file-MB")
		}
	}
}

// rssFile is the part of a process's RSS that is mapped files (its
// executable's text and read-only data, shared libraries), in MiB: of the
// peak, what no heap setting changes.
func rssFile(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "RssFile:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no RssFile in /proc/PID/status")
}

// stdioMuxFloor is stdioFloor with calls in flight at once: each request's
// handler writes its line to the child and waits for the response with its
// id, which one reader of the child's stdout hands it (the hand-off weft's
// stdio upstream has too). It assumes the ids of the one session the
// benchmark opens, so it does not rewrite them.
type stdioMuxFloor struct {
	*stdioFloor // the child and the handshake state; its mu serialises writes to stdin

	pmu     sync.Mutex
	pending map[string]chan []byte // by raw id, the calls waiting for a response
}

// startStdioMuxFloor starts the child and the reader of its stdout, which
// ends when the child's stdout closes (the child ends with ctx).
func startStdioMuxFloor(ctx context.Context, bin string) (*stdioMuxFloor, error) {
	f, err := startStdioFloor(ctx, bin)
	if err != nil {
		return nil, err
	}
	m := &stdioMuxFloor{stdioFloor: f, pending: map[string]chan []byte{}}
	go m.read()
	return m, nil
}

// read hands each response line to the call with its id; a request or
// notification of the child's (the echo server sends none during a call)
// is dropped.
func (m *stdioMuxFloor) read() {
	for {
		line, err := m.out.ReadBytes('\n')
		if err != nil {
			return
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &env) != nil || env.Method != "" {
			continue
		}
		m.pmu.Lock()
		ch := m.pending[string(env.ID)]
		delete(m.pending, string(env.ID))
		m.pmu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (m *stdioMuxFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, env, ok := readPost(w, r)
	if !ok {
		return
	}
	m.mu.Lock()
	if m.init != nil && env.Method == "initialize" || m.done && env.Method == "notifications/initialized" {
		defer m.mu.Unlock()
		m.handshake(w, env.ID)
		return
	}
	m.done = m.done || env.Method == "notifications/initialized"
	if env.Method == "initialize" {
		defer m.mu.Unlock() // the first session's handshake: later ones wait for its result
	}
	var ch chan []byte
	if env.ID != nil {
		ch = make(chan []byte, 1)
		m.pmu.Lock()
		m.pending[string(env.ID)] = ch
		m.pmu.Unlock()
	}
	_, err := m.in.Write(append(body, '\n'))
	if env.Method != "initialize" {
		m.mu.Unlock()
	}
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if ch == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case line := <-ch:
		m.answer(w, env.Method, line)
	case <-r.Context().Done():
		m.pmu.Lock()
		delete(m.pending, string(env.ID))
		m.pmu.Unlock()
	}
}
