//go:build unix

package procgroup

import (
	"errors"
	"syscall"
)

// signal sends SIGTERM or SIGKILL to the process group pgid leads, and to the
// descendants that left it (where the OS lets weft find them).
func (g *osGroup) signal(pgid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	g.remember(pgid)
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		err = nil // everyone has exited already
	}
	g.signalStrays(sig)
	return err
}
