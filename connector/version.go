package connector

import (
	"runtime/debug"
	"strings"
)

// buildVersion is the version `mcpgen build --version V` stamps into a
// connector binary with the linker:
//
//	-ldflags "-X github.com/mcpgen/mcpgen/connector.buildVersion=V"
//
// It is a variable only because the linker can set nothing else.
var buildVersion string

// BuildVersionSymbol is the linker name of the version mcpgen build stamps
// (go build -ldflags "-X BuildVersionSymbol=V").
const BuildVersionSymbol = "github.com/mcpgen/mcpgen/connector.buildVersion"

// appVersion is the version a connector reports in serverInfo and for
// --version: the one stamped by mcpgen build --version, else App.Version,
// else what the Go toolchain recorded from version control (a module
// version such as v1.2.3 or v0.0.0-20261122-abcdef123456+dirty), else
// "(devel)".
func appVersion(app *App) string {
	if buildVersion != "" {
		return buildVersion
	}
	if app != nil && app.Version != "" {
		return app.Version
	}
	if v := vcsVersion(); v != "" {
		return v
	}
	return "(devel)"
}

func vcsVersion() string {
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
