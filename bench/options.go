//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// options select what runs and how much of it.
type options struct {
	short    bool
	json     bool
	scenario string
	weftEnv  envList
	log      io.Writer
}

// envList collects repeated --weft-env K=V flags.
type envList []string

// String shows the variables as given.
func (e *envList) String() string { return strings.Join(*e, " ") }

// Set adds one K=V.
func (e *envList) Set(kv string) error {
	if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
		return fmt.Errorf("%q is not K=V; write it like GOGC=400", kv)
	}
	*e = append(*e, kv)
	return nil
}

func (o options) wants(s string) bool { return o.scenario == "" || o.scenario == s }

// pick returns short in smoke mode, else full.
func pick[T any](o options, short, full T) T {
	if o.short {
		return short
	}
	return full
}

// calls is the fixed number of calls per round at a concurrency.
func (o options) calls(conc int) int {
	if conc == 1 {
		return pick(o, 200, 2000)
	}
	return pick(o, 1000, 10000)
}

// rounds alternate direct and weft, so both see the same background load.
func (o options) rounds() int { return pick(o, 1, 3) }

// singles is how often one upstream's own start is timed.
func (o options) singles() int { return pick(o, 3, 10) }

// faninStdio is the number of stdio upstreams and tools each.
func (o options) faninStdio() (int, int) { return pick(o, 10, 100), 20 }

// faninHTTP is the number of HTTP upstreams and tools each.
func (o options) faninHTTP() (int, int) { return pick(o, 2, 10), pick(o, 500, 1000) }

// listRepeats is how often the whole catalog is listed.
func (o options) listRepeats() int { return pick(o, 3, 10) }

// reloadRounds is how many servers scenario 5 adds, one config write each.
func (o options) reloadRounds() int { return pick(o, 3, 10) }

// churnDuration is how long each churn run (and the quiet run) lasts.
func (o options) churnDuration() time.Duration { return pick(o, 3*time.Second, 30*time.Second) }

// churnIntervals: every 100 ms as the issue asks, and every 700 ms, just
// over weft's 500 ms reload debounce, so that each write is applied.
func (o options) churnIntervals() []time.Duration {
	return []time.Duration{100 * time.Millisecond, 700 * time.Millisecond}
}

// progress tells the user what finished, on stderr.
func (o options) progress(format string, args ...any) {
	if o.log != nil {
		fmt.Fprintf(o.log, "bench: "+format+"\n", args...)
	}
}
