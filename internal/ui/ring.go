package ui

// callRing keeps the last recentCalls finished calls. Adding one is O(1):
// a slice trimmed from the front moved every kept call on every call.
type callRing struct {
	views [recentCalls]CallView
	next  int // where the next call goes
	n     int // calls kept
}

func (r *callRing) add(v CallView) {
	r.views[r.next] = v
	r.next = (r.next + 1) % recentCalls
	r.n = min(r.n+1, recentCalls)
}

// newestFirst returns a copy of the calls kept, newest first.
func (r *callRing) newestFirst() []CallView {
	out := make([]CallView, 0, r.n)
	for i := 1; i <= r.n; i++ {
		out = append(out, r.views[(r.next-i+recentCalls)%recentCalls])
	}
	return out
}
