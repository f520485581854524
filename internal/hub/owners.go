package hub

import (
	"fmt"
	"sort"
	"strings"
)

// NameApprovals keeps the user's decisions about who may expose a name
// another server already exposes (tool pinning's file keeps them).
type NameApprovals interface {
	// ApprovedOwner is the server the user approved for an exposed name, or "".
	ApprovedOwner(name string) string
	// Claim records that server would take over name from owner, withheld
	// until the user approves it. It must not block on I/O.
	Claim(name, server, owner string)
}

// owners remembers which server first exposed each tool name, so that a
// server appearing later (or re-listing at run time) cannot take a name over
// and receive the calls meant for its owner. Guarded by the rebuild lock.
type owners struct {
	first     map[string]string // exposed name → server that first exposed it
	approvals NameApprovals     // nil: no approvals beyond first come
	// names counts first's names by server, so that a build finds the
	// names of removed servers without reading every name.
	names map[string]int
}

// candidate is one server's claim to an exposed tool name in a build.
type candidate struct {
	server   string
	original string
}

// decide returns, for each contested or new name, the server that exposes
// it, and the clash lines for the others. roster maps every configured
// server to its namespace: a removed owner's names are free again, and a
// name that a configured server's namespace holds more tightly than the
// candidate's (x's tool y__z against server x__y's z) is kept for that
// server whether or not it is up yet, so that start-up order decides nothing.
func (o *owners) decide(cands map[string][]candidate, sep string, roster map[string]string) (map[string]string, []string) {
	o.forgetRemoved(roster)
	winners := make(map[string]string, len(cands))
	var clashes []string
	spaces := namespaces(roster)
	for name, cs := range cands {
		if _, ok := o.first[name]; !ok {
			if nat := spaces.natural(name, sep); nat != "" {
				o.set(name, nat)
			}
		}
		win := o.pick(name, cs, sep)
		if win != "" {
			winners[name] = win
			if _, ok := o.first[name]; !ok {
				o.set(name, win)
			}
		}
		owner := o.first[name]
		for _, c := range cs {
			if c.server == win {
				continue
			}
			if o.approvals != nil {
				o.approvals.Claim(name, c.server, owner)
			}
			clashes = append(clashes, fmt.Sprintf("tool %s of %s withheld: the name is exposed by %s; if %s should serve it, run `weft mcp approve %s/%s`",
				name, c.server, owner, c.server, c.server, name))
		}
	}
	sort.Strings(clashes)
	return winners, clashes
}

// pick chooses who exposes name: the server the user approved, else its
// first owner, else (a new name) the server whose own namespace holds it
// most tightly, then by server name. It returns "" when the owner is
// configured but does not list the name now: nobody takes it over.
func (o *owners) pick(name string, cs []candidate, sep string) string {
	has := func(server string) bool { return hasServer(cs, server) }
	if s := o.approvedOwner(name); s != "" && has(s) {
		o.set(name, s)
		return s
	}
	if owner, ok := o.first[name]; ok {
		if has(owner) {
			return owner
		}
		return ""
	}
	best := cs[0]
	for _, c := range cs[1:] {
		cSep, bSep := strings.Contains(c.original, sep), strings.Contains(best.original, sep)
		if (!cSep && bSep) || (cSep == bSep && c.server < best.server) {
			best = c
		}
	}
	return best.server
}

// set records server as name's owner.
func (o *owners) set(name, server string) {
	if old, ok := o.first[name]; ok {
		if old == server {
			return
		}
		o.names[old]--
	}
	o.first[name] = server
	o.names[server]++
}

// forgetRemoved frees the names of servers no longer in roster.
func (o *owners) forgetRemoved(roster map[string]string) {
	if o.first == nil {
		o.first = map[string]string{}
	}
	if o.names == nil {
		o.names = map[string]int{}
		for _, s := range o.first {
			o.names[s]++
		}
	}
	var removed map[string]bool
	for server, n := range o.names {
		if _, ok := roster[server]; ok && n > 0 {
			continue
		}
		delete(o.names, server)
		if n > 0 {
			if removed == nil {
				removed = map[string]bool{}
			}
			removed[server] = true
		}
	}
	if len(removed) == 0 {
		return
	}
	for name, server := range o.first {
		if removed[server] {
			delete(o.first, name)
		}
	}
}

func (o *owners) approvedOwner(name string) string {
	if o.approvals == nil {
		return ""
	}
	return o.approvals.ApprovedOwner(name)
}

func hasServer(cs []candidate, server string) bool {
	for _, c := range cs {
		if c.server == server {
			return true
		}
	}
	return false
}

// serversByNamespace maps each namespace but "" to the configured servers
// that use it.
type serversByNamespace map[string][]string

func namespaces(roster map[string]string) serversByNamespace {
	out := serversByNamespace{}
	for server, ns := range roster {
		if ns != "" {
			out[ns] = append(out[ns], server)
		}
	}
	return out
}

// natural returns the configured server whose namespace holds name most
// tightly (the longest namespace that, followed by sep, prefixes it), or ""
// when none does or several share that namespace: then the first to expose
// the name owns it.
func (n serversByNamespace) natural(name, sep string) string {
	for i := len(name) - len(sep); i > 0; i-- {
		if name[i:i+len(sep)] != sep {
			continue
		}
		switch servers := n[name[:i]]; len(servers) {
		case 0:
			continue
		case 1:
			return servers[0]
		default:
			return ""
		}
	}
	return ""
}
