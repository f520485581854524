// Package procgroup starts a child process so that it and everything it
// starts form one group, and ends that whole group.
//
// MCP servers are often wrappers (npx, uvx, shell-less launchers) that fork
// the real server, so ending only the direct child would orphan the rest.
// What "group" means depends on the OS:
//
//   - Linux: a new process group (Setpgid). Pdeathsig kills the direct child
//     when weft dies, even by SIGKILL. Descendants that leave the group with
//     setsid are found through /proc while the child lives and are ended with
//     the group.
//   - macOS and the other Unixes: a new process group. There is no Pdeathsig:
//     if weft itself is killed with SIGKILL, the group is not signalled, and
//     the children's stdin (a pipe from weft) reaching EOF is the backstop; an
//     MCP server over stdio exits on it, one that ignores it lives on.
//   - Windows: a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. Only weft
//     holds the job's handle, so when weft exits, however it dies, Windows
//     ends every process in the job. Windows has no polite termination signal
//     for console programs without a console; Terminate does nothing there and
//     closing the child's stdin is the request to exit.
package procgroup

import (
	"fmt"
	"os/exec"
	"sync"
)

// Group is a started child and its descendants. Its methods are safe for
// concurrent use and may be called after the child has exited.
type Group struct {
	pid int
	os  osGroup

	closeOnce sync.Once
}

// Start starts cmd as the leader of a new group. cmd must not have been
// started; Start sets cmd.SysProcAttr, replacing any the caller set.
func Start(cmd *exec.Cmd) (*Group, error) {
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{pid: cmd.Process.Pid}
	if err := g.os.attach(cmd); err != nil {
		// A child weft could not put in a group must not run unsupervised.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("put process %d in its own group: %w", g.pid, err)
	}
	return g, nil
}

// Pid is the process id of the group's leader (the direct child).
func (g *Group) Pid() int { return g.pid }

// Terminate asks every process of the group to exit (SIGTERM on Unix; see the
// package doc for Windows). Processes that ignore it are ended by Kill.
func (g *Group) Terminate() error { return g.os.signal(g.pid, false) }

// Kill ends every process of the group at once. Killing a group whose
// processes have all exited is not an error.
func (g *Group) Kill() error { return g.os.signal(g.pid, true) }

// Close kills what is left of the group and releases what the OS holds for
// it (the job handle on Windows). Call it once the child has been waited for.
func (g *Group) Close() {
	g.closeOnce.Do(func() {
		_ = g.Kill()
		g.os.release()
	})
}
