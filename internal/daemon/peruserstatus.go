package daemon

import (
	"slices"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
)

// liveUsers names, per server, the users whose instance is up: started,
// connected and not retired. Sorted.
func (p *userPool) liveUsers() map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]string{}
	for key, inst := range p.insts {
		if isReady(inst) && inst.conn != nil && !inst.conn.Broken() {
			out[key.server] = append(out[key.server], key.user)
		}
	}
	for _, users := range out {
		slices.Sort(users)
	}
	return out
}

// instanceCounts is the number of live instances per server, for the
// weft_upstream_user_instances gauge (no user label: bounded cardinality).
func (p *userPool) instanceCounts() map[string]int {
	out := map[string]int{}
	for server, users := range p.liveUsers() {
		out[server] = len(users)
	}
	return out
}

// perUserStatus names the users of every configured per-user server: those
// with a live instance, and those with a stored login (oauth.per_user) or
// stored secrets (per_user stdio), never a token or a secret value. The
// token store is read once.
func (d *Daemon) perUserStatus() map[string]*hub.PerUserStatus {
	live := d.users.liveUsers()
	var stored oauth.StoredUsers
	if d.users.logins != nil {
		var err error
		if stored, err = d.users.logins.StoredUsers(); err != nil {
			d.logger.Warn("per-user status: cannot list the token store", "err", err)
		}
	}
	out := map[string]*hub.PerUserStatus{}
	for name, s := range d.Config().Servers {
		if !s.IsPerUser() {
			continue
		}
		st := &hub.PerUserStatus{Instances: live[name]}
		if st.Instances == nil {
			st.Instances = []string{}
		}
		if s.Transport() == config.TransportStdio {
			st.Secrets = stored.Secrets[name]
		} else {
			st.Logins = stored.Logins[name]
		}
		out[name] = st
	}
	return out
}
