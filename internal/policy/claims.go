package policy

// ApprovedOwner returns the server the user approved to expose a tool name
// that another server exposed first, or "".
func (p *Pins) ApprovedOwner(name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.data.Owners[name]
}

// Claim records that server would take over the exposed tool name from
// owner; the tool stays withheld until `weft mcp approve server/name`. It
// does no disk I/O (the record is saved in the background) and logs once.
func (p *Pins) Claim(name, server, owner string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data.Claims[server][name] == owner {
		return
	}
	p.logger.Warn("tool withheld: its name is exposed by another server; review it, then run `weft mcp approve "+server+"/"+name+"` to hand the name over",
		"server", server, "tool", name, "owner", owner)
	claim := func(d *pinsFile) bool {
		if d.Claims[server][name] == owner {
			return false
		}
		setIn(&d.Claims, server, name, owner)
		return true
	}
	claim(&p.data)
	p.seen = append(p.seen, claim)
	p.saveInBackgroundLocked()
}

// approveClaimsLocked hands the names server claims (every one, or only
// name) to server and returns them; callers hold p.mu and the file lock.
func (p *Pins) approveClaimsLocked(server, name string) []Change {
	var done []Change
	for n, owner := range p.data.Claims[server] {
		if name != "" && n != name {
			continue
		}
		if p.data.Owners == nil {
			p.data.Owners = map[string]string{}
		}
		p.data.Owners[n] = server
		delete(p.data.Claims[server], n)
		done = append(done, Change{Server: server, Tool: n, TakesOverFrom: owner})
	}
	if len(p.data.Claims[server]) == 0 {
		delete(p.data.Claims, server)
	}
	return done
}
