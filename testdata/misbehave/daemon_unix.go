//go:build unix

package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"syscall"
)

// daemonize starts this program in sleep mode in a new session (setsid), so
// it leaves our process group, sharing our stdout and stderr as a daemonizing
// helper that forgot to close them does.
func daemonize() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{"--mode", "sleep"}, markerArgs()...)
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start daemon: %w", err)
	}
	log.Printf("daemon %d started in its own session", cmd.Process.Pid)
	return nil
}
