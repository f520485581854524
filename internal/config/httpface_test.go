package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The HTTP face's keys of the configuration guide's complete example load
// with the values shown, which are the defaults; bad values are refused.
func TestHTTPFaceKeys(t *testing.T) {
	example := guideExample(t, "## A complete example")
	dir := isolate(t)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), example))
	if err != nil {
		t.Fatal(err)
	}
	want := Gateway{Listen: "127.0.0.1:7777", Separator: "__", MaxConnections: DefaultMaxConnections,
		IdleTimeout: Duration(DefaultIdleTimeout), BodyTimeout: Duration(DefaultBodyTimeout),
		MaxSessions: DefaultMaxSessions, SessionIdleTimeout: Duration(DefaultSessionIdleTimeout), AgentsDir: DefaultAgentsDir}
	if !reflect.DeepEqual(cfg.Gateway, want) || !reflect.DeepEqual(Default().Gateway, want) {
		t.Errorf("gateway = %+v, default %+v; want %+v", cfg.Gateway, Default().Gateway, want)
	}
	cfg, err = Load(writeFile(t, filepath.Join(dir, "weft.toml"), "[gateway]\nmax_sessions = 5\nsession_idle_timeout = \"90s\"\n"))
	if err != nil || cfg.Gateway.MaxSessions != 5 || cfg.Gateway.SessionIdleTimeout.Std() != 90*time.Second {
		t.Fatalf("gateway = %+v, %v", cfg.Gateway, err)
	}
	_, err = Load(writeFile(t, filepath.Join(dir, "weft.toml"), "[gateway]\nmax_connections = -1\n"))
	if err == nil || !strings.Contains(err.Error(), "gateway.max_connections is -1") {
		t.Fatalf("negative max_connections: %v", err)
	}
}
