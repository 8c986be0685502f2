package connector

import "github.com/mcpgen/mcpgen/internal/buildinfo"

// appVersion is the version a connector reports in serverInfo and for
// --version: the one stamped by mcpgen build --version, else App.Version,
// else what the Go toolchain recorded from version control (a module
// version such as v1.2.3 or v0.0.0-20261122-abcdef123456+dirty), else
// "(devel)".
func appVersion(app *App) string {
	if v := buildinfo.Stamped(); v != "" {
		return v
	}
	if app != nil && app.Version != "" {
		return app.Version
	}
	if v := buildinfo.VCS(); v != "" {
		return v
	}
	return "(devel)"
}
