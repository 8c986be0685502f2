package dev

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, so stopping it stops
// whatever it started too, and has the kernel kill it if mcpgen dev dies
// without stopping it (kill -9, a crash).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminate asks the process group of p to stop.
func terminate(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) }

// kill stops the process group of p at once.
func kill(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
