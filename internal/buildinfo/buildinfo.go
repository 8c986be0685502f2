// Package buildinfo turns a connector binary's build into its version: the
// one `mcpgen build --version V` stamps with the linker, else what the Go
// toolchain recorded from version control.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// stamped is set by the linker:
//
//	-ldflags "-X github.com/mcpgen/mcpgen/internal/buildinfo.stamped=V"
//
// It is a variable only because the linker can set nothing else.
var stamped string

// Symbol is the linker name of the stamped version
// (go build -ldflags "-X Symbol=V").
const Symbol = "github.com/mcpgen/mcpgen/internal/buildinfo.stamped"

// Stamped returns the version mcpgen build stamped, or "".
func Stamped() string { return stamped }

// VCS returns the version the Go toolchain recorded: a module version
// such as v1.2.3, or devel-REVISION with +dirty for a modified tree; ""
// when it recorded none.
func VCS() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel-" + rev
	if modified {
		v += "+dirty"
	}
	return strings.TrimSpace(v)
}
