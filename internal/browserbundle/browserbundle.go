// Package browserbundle turns esbuild's Go API into the self-contained
// browser bundles mcpgen makes (views, the inspector, the test host page):
// the build options they all share, and esbuild's messages turned into
// "file:line:col: text" with the 1-based columns every other mcpgen message
// uses.
package browserbundle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Options returns the esbuild options every mcpgen browser bundle starts
// from: everything bundled into one script for the browser and kept in
// memory (the caller inlines it into an HTML document), JSX compiled for
// React's automatic runtime, process.env.NODE_ENV set to "production" (so
// React and other packages take their production path whatever the caller
// minifies), and esbuild's own logging off: the caller reports the
// messages. The caller adds the entry point, format, target and the rest.
func Options() api.BuildOptions {
	return api.BuildOptions{
		Bundle:   true,
		Write:    false,
		Platform: api.PlatformBrowser,
		JSX:      api.JSXAutomatic,
		Define:   map[string]string{"process.env.NODE_ENV": `"production"`},
		LogLevel: api.LogLevelSilent,
	}
}

// Pos is a place in a source file, with 1-based line and columns.
type Pos struct {
	File      string
	Line, Col int
	// EndCol is the column just after the place's text, or 0 when esbuild
	// gave no length.
	EndCol int
}

// Position returns where l is, with esbuild's 0-based column made 1-based;
// ok is false for a message without a location.
func Position(l *api.Location) (p Pos, ok bool) {
	if l == nil {
		return Pos{}, false
	}
	p = Pos{File: l.File, Line: l.Line, Col: l.Column + 1}
	if l.Length > 0 {
		p.EndCol = p.Col + l.Length
	}
	return p, true
}

// Text renders messages one a line, as "file:line:col: text" (just the
// text for a message without a location).
func Text(msgs []api.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if p, ok := Position(m.Location); ok {
			fmt.Fprintf(&b, "%s:%d:%d: ", p.File, p.Line, p.Col)
		}
		b.WriteString(m.Text + "\n")
	}
	return b.String()
}

// Error returns nil when msgs is empty, else an error saying what was being
// bundled followed by the messages, one a line.
func Error(what string, msgs []api.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(what + ":\n" + Text(msgs))
}
