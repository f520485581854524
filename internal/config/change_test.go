package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChangeTxn: an edit is validated before anything applies; a failed
// write calls the undo; a stale If-Match changes nothing; a read-only
// change reads without writing.
func TestChangeTxn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "weft.toml")
	add := func(name string) func([]byte) ([]byte, error) {
		return func(data []byte) ([]byte, error) {
			return AddServerTo(data, path, &Server{Name: name, Target: "echo"})
		}
	}
	res, err := Change(ctx, path, Txn{Edit: add("a")})
	if err != nil || !res.Written || res.Config.Servers["a"] == nil {
		t.Fatalf("first add: %+v %v", res, err)
	}
	if _, err := Change(ctx, path, Txn{IfMatch: Hash([]byte("old")), Edit: add("b")}); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale If-Match: %v", err)
	}
	applied := false
	_, err = Change(ctx, path, Txn{Edit: func([]byte) ([]byte, error) { return []byte("[gateway\n"), nil },
		Apply: func(context.Context, *Config) (func(), error) { applied = true; return nil, nil }})
	if err == nil || applied {
		t.Fatalf("an edit that does not parse: err %v, applied %v", err, applied)
	}
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	undone := false
	_, err = Change(ctx, path, Txn{IfMatch: res.Hash, Edit: add("b"),
		Apply: func(context.Context, *Config) (func(), error) { return func() { undone = true }, nil }})
	if err == nil || !undone || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("write to a read-only file: err %v, undone %v", err, undone)
	}
	got, err := Change(ctx, path, Txn{})
	if err != nil || got.Written || got.Hash != res.Hash || len(got.Config.Servers) != 1 {
		t.Fatalf("read-only change: %+v %v", got, err)
	}
}
