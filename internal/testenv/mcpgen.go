package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

var built struct {
	once sync.Once
	bin  string
	err  error
}

// MCPGen builds this checkout's mcpgen command once per test process and
// returns the binary's path. A package's TestMain calls RemoveMCPGen after
// m.Run to delete it.
func MCPGen() (string, error) {
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-cli-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "mcpgen")
		cmd := exec.Command("go", "build", "-o", built.bin, "./cmd/mcpgen")
		cmd.Dir = Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ./cmd/mcpgen: %v\n%s", err, out)
		}
	})
	return built.bin, built.err
}

// RemoveMCPGen deletes the binary MCPGen built, if any.
func RemoveMCPGen() {
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
}
