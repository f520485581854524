//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// upstreamEntry is one [tools.mcp_servers.NAME] of a generated weft.toml.
type upstreamEntry struct {
	args []string
	env  string // value of the GEN variable: changing it changes the entry
}

// renderConfig writes a weft.toml with the given misbehave servers.
func renderConfig(bin string, servers map[string]upstreamEntry) string {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		s := servers[n]
		fmt.Fprintf(&b, "[tools.mcp_servers.%s]\ntarget = %q\nargs = %s\nenv = { GEN = %q }\n\n", n, bin, tomlList(s.args...), s.env)
	}
	return b.String()
}

// replaceConfig writes the config the way editors save: a temporary file in
// the same directory renamed over the old one.
func replaceConfig(t *testing.T, path, body string) {
	t.Helper()
	f, err := os.CreateTemp(filepath.Dir(path), ".weft-*.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(body); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		t.Fatal(err)
	}
}

// TestSwapUnderLoadLosesNoCall changes a server's config entry while 100
// calls to its slow tool are in flight: the old process finishes all of
// them while new calls go to the new one. The calls are held until the swap
// is done (the tool answers once the release file exists), so that the
// swap happens under load however long it takes on a busy machine.
func TestSwapUnderLoadLosesNoCall(t *testing.T) {
	bin := misbehaveBinary(t)
	marker := newMarker(t)
	e := newEnv(t)
	release := filepath.Join(t.TempDir(), "release")
	entry := upstreamEntry{args: []string{"--delay", "60s", "--release-file", release, "--marker", marker}, env: "1"}
	e.writeConfig(t, renderConfig(bin, map[string]upstreamEntry{"slow": entry}))
	s := e.serve()
	cs := connect(t, s.url, nil)
	before, _, _ := serverStatus(s, "slow")

	const n = 100
	var done atomic.Int64
	outcomes := make(chan outcome, n)
	for range n {
		go func() {
			o := timedCall(cs, "slow__slow", nil, 90*time.Second)
			done.Add(1)
			outcomes <- o
		}()
	}
	awaitStatus(t, s, "slow", 20*time.Second, "100 calls in flight", func(st hub.ServerStatus, _ bool) bool { return st.InFlight == n })
	entry.env = "2"
	replaceConfig(t, e.config, renderConfig(bin, map[string]upstreamEntry{"slow": entry}))
	awaitStatus(t, s, "slow", 20*time.Second, "swapped", func(st hub.ServerStatus, _ bool) bool {
		return st.Status == hub.StatusActive && st.ConnectedAt.After(before.ConnectedAt)
	})
	if d := done.Load(); d != 0 {
		t.Fatalf("%d calls had ended before the swap; the test must swap under load", d)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for range n {
		if o := <-outcomes; o.failed {
			failed++
			t.Errorf("call failed across the swap: %+v", o)
		}
	}
	t.Logf("swap with %d calls in flight: %d failed", n, failed)
	if o := timedCall(cs, "slow__echo", map[string]any{"text": "after"}, 10*time.Second); o.failed {
		t.Fatalf("call after the swap: %+v", o)
	}
	awaitProcCount(t, marker, 1) // the old generation ended after its drain
	stopWeft(t, s, cs, marker)
}

// maxLoadInFlight bounds the load generator's calls in flight. Without a
// bound, a machine too busy to answer the rate queues ever more calls until
// they wait past their deadline behind each other, which weft would not be
// losing; with it, such a machine lowers the rate (the skipped calls are
// counted and logged).
const maxLoadInFlight = 64

// reloadLoad counts the calls of the load generator by what they came to.
type reloadLoad struct {
	stableOK, stableFailed       atomic.Int64
	churnOK, churnRejected       atomic.Int64
	churnLiveFailed, churnOthers atomic.Int64
	skipped                      atomic.Int64 // not made: maxLoadInFlight were in flight

	mu       sync.Mutex
	failures []string       // first few unexpected failures
	rejects  map[string]int // allowed rejections by kind
}

// allowedRejection is what a call to a server that is being removed (or
// not yet added) may answer; anything else is a lost call.
var allowedRejection = regexp.MustCompile(`server draining|not found|unknown tool|server disconnected|still connecting`)

func (l *reloadLoad) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 10 {
		l.failures = append(l.failures, fmt.Sprintf(format, args...))
	}
}

// churnTarget is the churn server the generator addresses: live is true
// while it is fully added and not being removed.
type churnTarget struct {
	name string
	live bool
}

// generate calls the stable servers and the churn server at the given rate
// until ctx ends; every call has its own deadline. Each tick catches up
// with the rate, so a slow tick does not lower it; a call due while
// maxLoadInFlight are in flight is skipped.
func (l *reloadLoad) generate(ctx context.Context, cs *mcp.ClientSession, stable []string, churn *atomic.Pointer[churnTarget], rate int) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxLoadInFlight)
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	start := time.Now()
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		for due := int(time.Since(start).Seconds() * float64(rate)); i < due; i++ {
			select {
			case slots <- struct{}{}:
			default:
				l.skipped.Add(1)
				continue
			}
			wg.Add(1)
			go func(n int) {
				defer wg.Done()
				defer func() { <-slots }()
				l.call(cs, n, stable, churn)
			}(i)
		}
	}
}

// call makes call number i: every fourth goes to the churn server, the
// others to the stable servers in turn.
func (l *reloadLoad) call(cs *mcp.ClientSession, i int, stable []string, churn *atomic.Pointer[churnTarget]) {
	if i%4 == 3 {
		l.callChurn(cs, churn)
		return
	}
	name := stable[i%len(stable)] + "__echo"
	if o := timedCall(cs, name, map[string]any{"text": "x"}, 10*time.Second); o.failed {
		l.stableFailed.Add(1)
		l.fail("%s: %s", name, o.text)
	} else {
		l.stableOK.Add(1)
	}
}

// callChurn calls the churn server. A call made and answered while the
// server stayed live must succeed; any other may only be refused with an
// allowed rejection.
func (l *reloadLoad) callChurn(cs *mcp.ClientSession, churn *atomic.Pointer[churnTarget]) {
	target := churn.Load()
	o := timedCall(cs, target.name+"__echo", map[string]any{"text": "x"}, 10*time.Second)
	stayedLive := target.live && churn.Load() == target
	switch {
	case !o.failed:
		l.churnOK.Add(1)
	case stayedLive:
		l.churnLiveFailed.Add(1)
		l.fail("%s (live): %s", target.name, o.text)
	case allowedRejection.MatchString(o.text):
		l.churnRejected.Add(1)
		l.mu.Lock()
		l.rejects[allowedRejection.FindString(o.text)]++
		l.mu.Unlock()
	default:
		l.churnOthers.Add(1)
		l.fail("%s (removed): %s", target.name, o.text)
	}
}

// TestReloadsUnderLoadLoseNoCall applies 50 reloads (adding, changing and
// removing servers) while up to 200 calls/s (at most maxLoadInFlight at a
// time) go to three stable servers and to the server that changes: no call
// to a stable server fails, and a call to the changing server fails only
// when addressed to it while it is removed, with a clear rejection, never a
// hang.
func TestReloadsUnderLoadLoseNoCall(t *testing.T) {
	const reloads, rate = 50, 200
	bin := misbehaveBinary(t)
	marker := newMarker(t)
	e := newEnv(t)
	stable := []string{"st1", "st2", "st3"}
	servers := map[string]upstreamEntry{}
	for _, n := range stable {
		servers[n] = upstreamEntry{args: []string{"--marker", marker}, env: "0"}
	}
	e.writeConfig(t, renderConfig(bin, servers))
	s := e.serve()
	cs := connect(t, s.url, nil)

	var churn atomic.Pointer[churnTarget]
	churn.Store(&churnTarget{name: "churn0"})
	load := &reloadLoad{rejects: map[string]int{}}
	ctx, stop := context.WithCancel(context.Background())
	genDone := make(chan struct{})
	go func() {
		defer close(genDone)
		load.generate(ctx, cs, stable, &churn, rate)
	}()
	start := time.Now()
	for step := range reloads {
		applyReloadStep(t, s, e.config, bin, marker, servers, step, &churn)
	}
	stop()
	<-genDone
	elapsed := time.Since(start)
	// The last step's effect is visible before weft logs its reload.
	reloaded := 0
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if reloaded = strings.Count(s.stderr.String(), "config reloaded"); reloaded >= reloads || time.Now().After(deadline) {
			break
		}
	}
	total := load.stableOK.Load() + load.stableFailed.Load() + load.churnOK.Load() + load.churnRejected.Load() + load.churnLiveFailed.Load() + load.churnOthers.Load()
	t.Logf("%d reloads applied (%d logged) in %v; %d calls (%.0f/s, %d skipped with %d in flight): stable ok %d failed %d; churn ok %d rejected-as-removed %d %v failed-while-live %d failed-otherwise %d",
		reloads, reloaded, elapsed.Round(time.Millisecond), total, float64(total)/elapsed.Seconds(), load.skipped.Load(), maxLoadInFlight,
		load.stableOK.Load(), load.stableFailed.Load(), load.churnOK.Load(), load.churnRejected.Load(), load.rejects, load.churnLiveFailed.Load(), load.churnOthers.Load())
	if load.stableFailed.Load()+load.churnLiveFailed.Load()+load.churnOthers.Load() != 0 {
		t.Fatalf("calls lost during reloads: %v", load.failures)
	}
	if reloaded < reloads {
		t.Fatalf("weft logged %d reloads, want %d (each step must be its own reload)", reloaded, reloads)
	}
	awaitProcCount(t, marker, len(servers)) // removed and replaced servers' processes ended
	stopWeft(t, s, cs, marker)
}

// applyReloadStep rewrites weft.toml for step (add, change, then remove one
// churn server per three steps) and waits until weft has applied it.
func applyReloadStep(t *testing.T, s *served, path, bin, marker string, servers map[string]upstreamEntry, step int, churn *atomic.Pointer[churnTarget]) {
	t.Helper()
	name := fmt.Sprintf("churn%d", step/3)
	const limit = 20 * time.Second
	switch step % 3 {
	case 0: // add
		servers[name] = upstreamEntry{args: []string{"--marker", marker}, env: "0"}
		churn.Store(&churnTarget{name: name})
		replaceConfig(t, path, renderConfig(bin, servers))
		awaitTool(t, s, name+"__echo", limit)
		churn.Store(&churnTarget{name: name, live: true})
	case 1: // change: a swap, during which the server stays live
		before, _, _ := serverStatus(s, name)
		servers[name] = upstreamEntry{args: servers[name].args, env: fmt.Sprint(step)}
		replaceConfig(t, path, renderConfig(bin, servers))
		awaitStatus(t, s, name, limit, "swapped", func(st hub.ServerStatus, found bool) bool {
			return found && st.Status == hub.StatusActive && st.ConnectedAt.After(before.ConnectedAt)
		})
	case 2: // remove
		delete(servers, name)
		churn.Store(&churnTarget{name: name})
		replaceConfig(t, path, renderConfig(bin, servers))
		awaitStatus(t, s, name, limit, "removed", func(_ hub.ServerStatus, found bool) bool { return !found })
	}
}

// awaitTool polls the admin endpoint until the catalog has the tool.
func awaitTool(t *testing.T, s *served, tool string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st, err := adminStatus(s)
		if err == nil && (has(st.Listed, tool) || has(st.Hidden, tool)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tool %s not in the catalog within %v (err %v)", tool, limit, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
