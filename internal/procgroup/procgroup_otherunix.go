//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// prepare puts the child in a new process group. These systems have no
// Pdeathsig; see the package doc for what ends the children if weft dies.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// osGroup needs no state here: descendants that leave the group are not
// tracked on these systems.
type osGroup struct{}

func (*osGroup) attach(*exec.Cmd) error          { return nil }
func (*osGroup) release()                        {}
func (*osGroup) remember(int)                    {}
func (*osGroup) signalStrays(sig syscall.Signal) {}
