package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/internal/atomicfile"
)

// Instance is one running `weft serve`, as its state entry records it.
type Instance struct {
	Addr string `json:"addr"`
	PID  int    `json:"pid"`
}

// stateDir holds one entry per running weft serving configPath, so that
// several wefts on one config (the normal case with one weft per client
// session) each have their own, and `weft mcp list` finds them all. Wefts
// with different configs do not see each other.
func stateDir(configPath string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(configPath)
	if err != nil {
		abs = configPath
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(home, ".weft", "run", "serve-"+hex.EncodeToString(sum[:])[:16]), nil
}

// Announce records that this process serves configPath at addr. The
// returned func removes this process's entry, and only it.
func Announce(configPath, addr string) (remove func(), err error) {
	dir, err := stateDir(configPath)
	if err != nil {
		return func() {}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, fmt.Errorf("cannot create %s: %w", dir, err)
	}
	pid := os.Getpid()
	path := filepath.Join(dir, strconv.Itoa(pid)+".json")
	b, _ := json.Marshal(Instance{Addr: addr, PID: pid})
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		return func() {}, err
	}
	return func() { _ = os.Remove(path) }, nil
}

// LiveInstances lists the wefts serving configPath, by pid. Entries of
// processes that no longer run (a weft killed before it could clean up) are
// removed on the way.
func LiveInstances(configPath string) []Instance {
	dir, err := stateDir(configPath)
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	var out []Instance
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		var in Instance
		if err != nil || json.Unmarshal(b, &in) != nil || in.Addr == "" {
			continue
		}
		if !processAlive(in.PID) {
			_ = os.Remove(path)
			continue
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
