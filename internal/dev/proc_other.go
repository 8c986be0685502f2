//go:build !unix

package dev

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: without Unix process groups, only the
// connector process itself is stopped.
func ownGroup(cmd *exec.Cmd) {}

// terminate stops p; there is no gentler signal to send here.
func terminate(p *os.Process) { _ = p.Kill() }

// kill stops p.
func kill(p *os.Process) { _ = p.Kill() }
