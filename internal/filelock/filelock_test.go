package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestTryLockWhileHeld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "weft.toml")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(p); !errors.Is(err, ErrBusy) {
		t.Fatalf("TryLock while held: err = %v, want ErrBusy", err)
	}
	unlock()
	again, err := TryLock(p)
	if err != nil {
		t.Fatalf("TryLock after unlock: %v", err)
	}
	again()
}

func TestLockWaitsForContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "weft.toml")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock on a held lock: err = %v, want the context's deadline", err)
	}
}

// TestLockSerialises runs read-modify-write cycles from many goroutines; each
// holder opens its own lock file descriptor, as separate processes would.
func TestLockSerialises(t *testing.T) {
	p := filepath.Join(t.TempDir(), "counter")
	var inside, max int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Lock(context.Background(), p)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			if inside > max {
				max = inside
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if max != 1 {
		t.Fatalf("%d holders at once, want 1", max)
	}
}
