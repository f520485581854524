package daemon

import (
	"reflect"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
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

// TestLoginUser: concurrent logins through clients are shared per server,
// whoever calls, except on a per-user server, where each user logs in.
func TestLoginUser(t *testing.T) {
	shared := &config.Server{Name: "gh", Target: "https://mcp.example.com/mcp"}
	perUser := &config.Server{Name: "gh", Target: "https://mcp.example.com/mcp", OAuth: &config.OAuth{PerUser: true}}
	for _, row := range []struct {
		s          *config.Server
		user, want string
	}{{shared, "alice", ""}, {shared, "", ""}, {perUser, "alice", "alice"}, {perUser, "", ""}} {
		if got := loginUser(row.s, row.user); got != row.want {
			t.Errorf("loginUser(per user %v, %q) = %q, want %q", row.s.IsPerUser(), row.user, got, row.want)
		}
	}
}
