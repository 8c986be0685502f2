//go:build unix && !linux

package dev

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, so stopping it stops
// whatever it started too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the process group of p to stop.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }

// kill stops the process group of p at once.
func kill(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
