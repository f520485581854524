package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/testutil"
	"github.com/weft-dev/weft/internal/upstream"
	"go.uber.org/goleak"
)

// testPool is a pool over one per-user stdio server, whose config the
// test may swap, with a clock the test moves.
type testPool struct {
	*userPool
	mu  sync.Mutex
	cfg *config.Server
	now time.Time
}

func newTestPool(t *testing.T, authOn bool) *testPool {
	t.Helper()
	store, err := oauth.OpenStore(oauth.StoreFile, func(k string) string {
		if k == "WEFT_HOME" {
			return t.TempDir()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	logins := oauth.NewManager(oauth.ManagerOptions{Store: store})
	if err := logins.SetSecret("team", "alice", "TEAM_TOKEN", "a-secret"); err != nil {
		t.Fatal(err)
	}
	tp := &testPool{now: time.Unix(1000, 0), cfg: &config.Server{Name: "team", PerUser: true, IdleTimeout: config.Duration(time.Minute),
		Target: testutil.GoBinary(t, "github.com/weft-dev/weft/testdata/envserver", "envserver")}}
	p := newUserPool(upstream.Options{}, logins, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	p.servers = func(name string) (*config.Server, bool) {
		tp.mu.Lock()
		defer tp.mu.Unlock()
		return tp.cfg, name == "team" && tp.cfg != nil
	}
	p.authOn = func() bool { return authOn }
	p.now = func() time.Time { tp.mu.Lock(); defer tp.mu.Unlock(); return tp.now }
	tp.userPool = p
	t.Cleanup(p.Close)
	return tp
}

func (tp *testPool) call(t *testing.T, user string) *upstream.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, done, err := tp.Instance(withUser(ctx, user), "team")
	if err != nil || conn == nil {
		t.Fatalf("instance for %s: %v, %v", user, conn, err)
	}
	done()
	return conn
}

func TestUserPoolGivesEachUserTheirOwnInstance(t *testing.T) {
	defer goleak.VerifyNone(t)
	tp := newTestPool(t, true)
	alice, bob := tp.call(t, "alice"), tp.call(t, "bob")
	if alice == bob {
		t.Fatal("alice and bob share one instance")
	}
	if again := tp.call(t, "alice"); again != alice {
		t.Error("alice's second call started another instance")
	}
	if n := tp.running(); n != 2 {
		t.Errorf("%d instances running, want 2", n)
	}
	tp.Close()
	if !alice.Broken() || !bob.Broken() {
		t.Error("Close left an instance running")
	}
}

func TestUserPoolRefusesCallsWithoutAUser(t *testing.T) {
	tp := newTestPool(t, true)
	_, _, err := tp.Instance(context.Background(), "team")
	var nu *NoUserError
	if !errors.As(err, &nu) || nu.Server != "team" {
		t.Fatalf("a call without a user: %v, want NoUserError", err)
	}
	if conn, _, err := tp.Instance(withUser(context.Background(), "alice"), "other"); conn != nil || err != nil {
		t.Errorf("a server that is not per-user: %v, %v; want the hub's own connection", conn, err)
	}
	off := newTestPool(t, false)
	if conn, _, err := off.Instance(context.Background(), "team"); conn != nil || err != nil {
		t.Errorf("without [gateway.auth]: %v, %v; want the hub's own connection", conn, err)
	}
}

func TestUserPoolStopsIdleAndChangedInstances(t *testing.T) {
	tp := newTestPool(t, true)
	first := tp.call(t, "alice")
	changed := *tp.cfg
	changed.Args = []string{"--changed"}
	tp.mu.Lock()
	tp.cfg = &changed
	tp.mu.Unlock()
	second := tp.call(t, "alice")
	if second == first {
		t.Fatal("a changed config kept the old instance")
	}
	tp.bg.Wait() // the retired instance's close
	if !first.Broken() {
		t.Error("the instance of the old config still runs")
	}
	tp.mu.Lock()
	tp.now = tp.now.Add(59 * time.Second)
	tp.mu.Unlock()
	tp.reapOnce()
	if tp.running() != 1 {
		t.Fatal("an instance was stopped before idle_timeout")
	}
	tp.mu.Lock()
	tp.now = tp.now.Add(2 * time.Second)
	tp.mu.Unlock()
	tp.reapOnce()
	tp.bg.Wait()
	if tp.running() != 0 || !second.Broken() {
		t.Error("an instance idle past idle_timeout still runs")
	}
}

// running counts the per-user instances started and not yet stopped.
func (tp *testPool) running() int {
	tp.userPool.mu.Lock()
	defer tp.userPool.mu.Unlock()
	return len(tp.insts)
}
