package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

func fakeServer(t *testing.T, name string) *config.Server {
	return &config.Server{Name: name, Target: testutil.FakeServerBinary(t), Args: []string{"--name", name}}
}

// TestChangeConcurrentAddsLoseNothing: 20 adds at once, half from `weft mcp
// add` processes (the file path under the lock) and half through the
// running daemon (the path mcp_manage and the admin API take), all land in
// weft.toml, and the daemon ends up running all 20.
func TestChangeConcurrentAddsLoseNothing(t *testing.T) {
	weft := testutil.GoBinary(t, "github.com/weft-dev/weft/cmd/weft", "weft")
	fake := testutil.FakeServerBinary(t)
	path := writeConfig(t, "# my servers\n[security]\nautonomy = \"full\"\n")
	d := newDaemon(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		name := fmt.Sprintf("s%02d", i)
		if i%2 == 0 {
			wg.Go(func() {
				if _, err := d.AddServer(ctx, fakeServer(t, name), gateway.ChangeOptions{}); err != nil {
					errs <- fmt.Errorf("daemon add %s: %w", name, err)
				}
			})
			continue
		}
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, weft, "--config", path, "--log-level", "error", "mcp", "add", name, fake, "--", "--name", name)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("weft mcp add %s: %v: %s", name, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 20 {
		t.Fatalf("weft.toml has %d servers after 20 concurrent adds, want 20: %v", len(cfg.Servers), cfg.Names())
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "# my servers\n") {
		t.Errorf("the comment at the top was lost:\n%s", b)
	}
	d.Reload(ctx) // the CLI's adds reach a running daemon as an outside edit
	if n := len(d.Hub().Names()); n != 20 {
		t.Fatalf("the daemon runs %d servers, want 20: %v", n, d.Hub().Names())
	}
}

// TestChangePersistFailureLeavesHubAsItWas: with weft.toml read-only, an
// add connects, fails to write, and is undone: the hub runs what it ran,
// and the error says why.
func TestChangePersistFailureLeavesHubAsItWas(t *testing.T) {
	path := writeConfig(t, "[tools.mcp_servers.one]\ntarget = \""+testutil.FakeServerBinary(t)+"\"\nargs = [\"--name\", \"one\"]\n")
	d := newDaemon(t, path)
	before, _ := os.ReadFile(path)
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	_, err := d.AddServer(context.Background(), fakeServer(t, "two"), gateway.ChangeOptions{})
	if !errors.Is(err, atomicfile.ErrReadOnly) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("add to a read-only weft.toml: %v, want an error saying it is read-only", err)
	}
	if names := d.Hub().Names(); len(names) != 1 || names[0] != "one" {
		t.Fatalf("hub runs %v after the failed change, want [one]", names)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("weft.toml changed:\n%s", after)
	}
	_, err = d.RemoveServer(context.Background(), "one", gateway.ChangeOptions{})
	if err == nil {
		t.Fatal("remove from a read-only weft.toml succeeded")
	}
	if names := d.Hub().Names(); len(names) != 1 {
		t.Fatalf("a failed remove stopped the server: hub runs %v", names)
	}
}

// TestChangeIfMatch: a change based on an old content hash is refused and
// changes nothing; one based on the current hash goes through.
func TestChangeIfMatch(t *testing.T) {
	path := writeConfig(t, "")
	d := newDaemon(t, path)
	stale := config.Hash([]byte("something else"))
	_, err := d.AddServer(context.Background(), fakeServer(t, "one"), gateway.ChangeOptions{IfMatch: stale})
	if !errors.Is(err, config.ErrConflict) {
		t.Fatalf("stale If-Match: %v, want ErrConflict", err)
	}
	if len(d.Hub().Names()) != 0 {
		t.Fatalf("a refused change started %v", d.Hub().Names())
	}
	res, err := d.AddServer(context.Background(), fakeServer(t, "one"), gateway.ChangeOptions{IfMatch: d.ConfigHash()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if res.Hash != config.Hash(b) || d.ConfigHash() != res.Hash {
		t.Fatalf("hash after the change %q, file's %q, daemon's %q", res.Hash, config.Hash(b), d.ConfigHash())
	}
}

// TestChangeUnreachableServerIsNotWritten: a verified add that cannot
// connect leaves nothing running and nothing written.
func TestChangeUnreachableServerIsNotWritten(t *testing.T) {
	path := writeConfig(t, "")
	d := newDaemon(t, path)
	_, err := d.AddServer(context.Background(), &config.Server{Name: "broken", Target: "/nonexistent/server"}, gateway.ChangeOptions{})
	var ce *daemon.ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, gateway.ErrNotConnected) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("add of an unreachable server: %v", err)
	}
	if len(d.Hub().Names()) != 0 {
		t.Fatalf("hub runs %v", d.Hub().Names())
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Fatalf("weft.toml written:\n%s", b)
	}
}

// TestChangeAndReloadConcurrently: mcp_manage's adds and the watcher's
// reloads at the same time (the data race the CLI's shared config loader
// once had) are serialised: under -race, no race, and every add stands.
func TestChangeAndReloadConcurrently(t *testing.T) {
	path := writeConfig(t, "")
	d := newDaemon(t, path)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 5 {
		name := fmt.Sprintf("m%d", i)
		wg.Go(func() {
			if _, err := d.AddServer(ctx, fakeServer(t, name), gateway.ChangeOptions{}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { d.Reload(ctx) })
		wg.Go(func() { _ = d.Config(); _ = d.ConfigHash() })
	}
	wg.Wait()
	if n := len(d.Hub().Names()); n != 5 || len(d.Config().Servers) != 5 {
		t.Fatalf("hub runs %d servers, config has %d; want 5 and 5", n, len(d.Config().Servers))
	}
}
