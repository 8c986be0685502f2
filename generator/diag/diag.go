// Package diag turns problems found in a user's project into data: positioned
// diagnostics that are collected (never only the first) and rendered as
// "path/file.go:12:5: message" relative to the project.
package diag

import (
	"fmt"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops generation.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Pos is a position in a source file. Line and Col are 1-based; Col counts bytes.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// At converts a go/token position.
func At(fset *token.FileSet, p token.Pos) Pos {
	if fset == nil || !p.IsValid() {
		return Pos{}
	}
	tp := fset.Position(p)
	return Pos{File: tp.Filename, Line: tp.Line, Col: tp.Column}
}

// Diagnostic is one problem at one place, with the fix when one is known.
type Diagnostic struct {
	Pos      Pos      `json:"pos"`
	End      Pos      `json:"end,omitzero"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code,omitempty"` // stable identifier, e.g. "unknown-option"
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"` // how to fix it
}

// String renders the diagnostic with an absolute or as-given path.
func (d Diagnostic) String() string { return d.Render("") }

// Render renders the diagnostic with its path made relative to root (when it
// lies under root): "ui/card.tsx:3:7: error: message (hint)". Errors omit the
// severity word, as the Go toolchain does.
func (d Diagnostic) Render(root string) string {
	p := d.Pos
	if root != "" && p.File != "" && filepath.IsAbs(p.File) {
		if rel, err := filepath.Rel(root, p.File); err == nil && !strings.HasPrefix(rel, "..") {
			p.File = rel
		}
	}
	var b strings.Builder
	if s := p.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if d.Severity == Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	if d.Hint != "" {
		b.WriteString("\n\t")
		b.WriteString(d.Hint)
	}
	return b.String()
}

// List collects diagnostics. The zero value is ready to use.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Errorf appends an error at pos.
func (l *List) Errorf(pos Pos, code, hint, format string, args ...any) {
	l.Add(Diagnostic{Pos: pos, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// Warnf appends a warning at pos.
func (l *List) Warnf(pos Pos, code, hint, format string, args ...any) {
	l.Add(Diagnostic{Pos: pos, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// Append appends all of other.
func (l *List) Append(other List) { *l = append(*l, other...) }

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, line and column, keeping insertion order
// for ties so related messages stay together.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Render renders every diagnostic on its own line(s), relative to root.
func (l List) Render(root string) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.Render(root))
		b.WriteByte('\n')
	}
	return b.String()
}

// Err returns nil when the list holds no errors, and otherwise an error whose
// text is the rendered list.
func (l List) Err(root string) error {
	if !l.HasErrors() {
		return nil
	}
	return &ListError{List: l, Root: root}
}

// ListError is a List used as an error value.
type ListError struct {
	List List
	Root string
}

func (e *ListError) Error() string { return strings.TrimRight(e.List.Render(e.Root), "\n") }
