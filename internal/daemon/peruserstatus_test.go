package daemon

import (
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestUserPoolNamesLiveUsers: the status names the users whose instance
// runs, and the gauge counts them, until the reaper stops them.
func TestUserPoolNamesLiveUsers(t *testing.T) {
	defer goleak.VerifyNone(t)
	tp := newTestPool(t, true)
	if got := tp.liveUsers(); len(got) != 0 {
		t.Fatalf("live users before any call: %v", got)
	}
	tp.call(t, "bob")
	tp.call(t, "alice")
	if got, want := tp.liveUsers(), map[string][]string{"team": {"alice", "bob"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("liveUsers = %v, want %v", got, want)
	}
	if got := tp.instanceCounts(); got["team"] != 2 {
		t.Errorf("instanceCounts = %v, want team: 2", got)
	}
	tp.mu.Lock()
	tp.now = tp.now.Add(2 * time.Minute)
	tp.mu.Unlock()
	tp.reapOnce()
	if got := tp.liveUsers(); len(got) != 0 {
		t.Errorf("live users after the idle timeout: %v", got)
	}
	tp.Close()
}
