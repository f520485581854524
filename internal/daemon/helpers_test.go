package daemon_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
)

// newDaemon starts a daemon on the config at path (no watcher), closed when
// the test ends. HOME is the test's, so plans and pins stay inside it.
func newDaemon(t testing.TB, path string, opts ...func(*daemon.Options)) *daemon.Daemon {
	t.Helper()
	d := startDaemon(t, path, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d.Settle(ctx)
	return d
}

// startDaemon is newDaemon without waiting for the servers' first
// connections.
func startDaemon(t testing.TB, path string, opts ...func(*daemon.Options)) *daemon.Daemon {
	t.Helper()
	t.Setenv("HOME", filepath.Dir(path))
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o := daemon.Options{NoWatch: true, ApprovalTimeout: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for _, f := range opts {
		f(&o)
	}
	d, err := daemon.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

// writeConfig writes body as weft.toml in a fresh directory.
func writeConfig(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "weft.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// scrape reads the daemon's /metrics.
func scrape(t *testing.T, d *daemon.Daemon) string {
	t.Helper()
	srv := httptest.NewServer(d.Gateway().Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}
