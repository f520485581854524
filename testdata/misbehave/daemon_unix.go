//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// daemonize starts this program in sleep mode in a new session (setsid), so
// it leaves our process group, sharing our stdout and stderr as a daemonizing
// helper that forgot to close them does.
func daemonize() error {
	return startGrandchild(func(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} })
}
