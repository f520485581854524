package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prepare starts the child in a new process group, so a console Ctrl-C
// meant for weft is not also delivered to it.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &windows.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// osGroup is the Job Object holding the child and, by inheritance, every
// process it starts. A process started by the child between Start and attach
// (microseconds) escapes the job; MCP servers do not fork that early.
type osGroup struct {
	mu  sync.Mutex
	job windows.Handle
}

// attach creates a kill-on-close job and puts the child in it.
func (g *osGroup) attach(cmd *exec.Cmd) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("set the job's kill-on-close limit: %w", err)
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("open the process: %w", err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("assign the process to the job: %w", err)
	}
	g.job = job
	return nil
}

// signal ends the whole job on kill; Windows has no polite request to send
// (closing stdin is it), so terminate does nothing.
func (g *osGroup) signal(_ int, kill bool) error {
	if !kill {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return nil
	}
	err := windows.TerminateJobObject(g.job, 1)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		err = nil // the job's processes are already gone
	}
	return err
}

// release closes the job handle; with kill-on-close, that also ends any
// process still in it.
func (g *osGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}
