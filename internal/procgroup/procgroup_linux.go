package procgroup

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// prepare puts the child in a new process group, and has the kernel kill it
// when weft dies, even by SIGKILL.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// osGroup remembers the descendants that started their own session or group
// (a daemonizing grandchild), so they end with the group.
type osGroup struct {
	mu     sync.Mutex
	strays map[int]uint64 // pid → start time, so a reused pid is never signalled
}

func (g *osGroup) attach(*exec.Cmd) error { return nil }
func (g *osGroup) release()               {}

// remember records the descendants of leader that are outside its group. It
// only sees them while the leader lives (an orphan is re-parented to init),
// so it runs on every signal, before the group is signalled.
func (g *osGroup) remember(leader int) {
	procs := procScans.scan()
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	queue := []int{leader}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if p := procs[c]; p.pgid != leader {
				if g.strays == nil {
					g.strays = map[int]uint64{}
				}
				g.strays[c] = p.start
			}
			queue = append(queue, c)
		}
	}
}

// signalStrays sends sig to the remembered descendants that still run.
func (g *osGroup) signalStrays(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for pid, start := range g.strays {
		p, ok := readStat(pid)
		if !ok || p.start != start {
			delete(g.strays, pid)
			continue
		}
		_ = syscall.Kill(pid, sig)
	}
}

// procStat is what weft needs of /proc/PID/stat.
type procStat struct {
	ppid, pgid int
	start      uint64
}

// procScans shares the /proc scans of groups signalled at once: a hub
// closing a hundred servers signals a hundred groups, three times each, and each
// scan reads every process's stat, so one scan per signal cost the square
// of the servers (half a second of CPU for a hundred, on a machine running
// a few hundred processes).
var procScans = scanShare{read: scanProcs}

// scanShare runs read for callers that ask at once, without ever handing
// one a scan that started before it asked: a caller that arrives while a
// scan runs waits for the next, which it shares with everyone else who
// arrived meanwhile. A hundred callers at once cost a few scans.
type scanShare struct {
	read func() map[int]procStat
	// queued, if set, is called (under mu) when a caller starts to wait
	// for the next scan; tests use it.
	queued func()

	mu      sync.Mutex
	cond    sync.Cond // on mu; signalled when a scan ends
	running bool
	started int              // scans started
	done    int              // the last scan that ended (its number)
	last    map[int]procStat // its result; read-only once returned
}

// scan returns the result of a scan that started after the call.
func (s *scanShare) scan() map[int]procStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cond.L == nil {
		s.cond.L = &s.mu
	}
	need := s.started + 1
	for s.done < need {
		if s.running {
			if s.queued != nil {
				s.queued()
			}
			s.cond.Wait()
			continue
		}
		s.running = true
		s.started++
		n := s.started
		s.mu.Unlock()
		procs := s.read()
		s.mu.Lock()
		s.last, s.done, s.running = procs, n, false
		s.cond.Broadcast()
	}
	return s.last
}

// scanProcs reads every process's parent, group and start time.
func scanProcs() map[int]procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procStat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// readStat parses /proc/PID/stat; the command name (field 2) may hold spaces
// and parentheses, so fields are counted from its closing parenthesis.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return procStat{ppid: ppid, pgid: pgid, start: start}, true
}
