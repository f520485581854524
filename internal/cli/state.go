package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/internal/config"
)

// serveState records where a running `weft serve` listens, so that
// `weft mcp list` with the same config finds it.
type serveState struct {
	Addr string `json:"addr"`
	PID  int    `json:"pid"`
}

// stateFile is per config file: two weft instances with different configs
// do not see each other.
func stateFile(configPath string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(configPath)
	if err != nil {
		abs = configPath
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(home, ".weft", "run", "serve-"+hex.EncodeToString(sum[:])[:16]+".json"), nil
}

func writeServeState(configPath, addr string) (string, error) {
	path, err := stateFile(configPath)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	b, _ := json.Marshal(serveState{Addr: addr, PID: os.Getpid()})
	return path, config.WriteFileAtomic(path, b, 0o600)
}

func removeServeState(path string) {
	if path != "" {
		_ = os.Remove(path)
	}
}

// readServeState returns the address of a weft serving configPath, if any.
func readServeState(configPath string) (string, bool) {
	path, err := stateFile(configPath)
	if err != nil {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var st serveState
	if json.Unmarshal(b, &st) != nil || st.Addr == "" {
		return "", false
	}
	return st.Addr, true
}
