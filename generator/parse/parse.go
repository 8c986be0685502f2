// Package parse turns a loaded module into an ir.Project: it finds the
// //mcpgen: directives on the module's functions, checks each function's
// signature against the handler shapes, classifies results, binds resource
// template variables and prompt arguments to input fields, resolves
// completions and views, and asks generator/schema for the JSON Schemas.
// Every problem is a diagnostic at the user's source position, and all of
// them are collected in one run.
package parse

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/directive"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/schema"
)

// Options configure Parse.
type Options struct {
	// Views are the project's views (bundled, or only discovered with
	// DiscoverViews); a tool's ui= must name one of them.
	Views []ir.View
}

// emptyInput is the input schema of a tool that takes no input struct.
var emptyInput = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false}`)

// handler is one function carrying one directive.
type handler struct {
	pkg  *packages.Package
	decl *ast.FuncDecl
	fn   *types.Func
	dir  *directive.Directive
	pos  diag.Pos // the function name
	ref  ir.Func
	doc  string
	sig  ir.Signature
	in   types.Type // the input type without pointer, or nil

	// badDir is set when the directive has errors: the handler is still
	// checked (see shape), so its other mistakes show in the same run.
	badDir bool
}

type parser struct {
	prog    *load.Program
	diags   *diag.List
	schemas *schema.Builder
	views   []ir.View
	mcpPkg  *types.Package
	root    string // import path of the module root package
	asks    *asks  // what tools may ask the client
}

// Parse builds the IR of prog. Problems are added to diags; ok is false when
// any error was added. The project holds everything that could be built.
func Parse(prog *load.Program, opts Options, diags *diag.List) (*ir.Project, bool) {
	before := len(*diags)
	proj := &ir.Project{Module: prog.Module, Dir: prog.Dir, Name: ServerName(prog.Module)}
	p := &parser{prog: prog, diags: diags, views: opts.Views}
	switch {
	case prog.Root == nil:
		diags.Errorf(diag.Pos{File: prog.Dir}, "no-root", hintNoRoot, msgNoRoot)
	case prog.Root.Name != "main":
		pos := diag.Pos{File: prog.Dir}
		if len(prog.Root.Syntax) > 0 {
			pos = p.at(prog.Root.Syntax[0].Name.Pos())
		}
		diags.Errorf(pos, "root-not-main", hintRootNotMain, msgRootNotMain, prog.Root.Name)
	}
	if prog.Root != nil {
		p.root = prog.Root.PkgPath
		proj.MainPkg = p.root
	}
	p.schemas = schema.NewBuilder(prog.Fset, prog.Packages)
	p.mcpPkg = findPackage(prog.Packages, mcpPath)
	p.asks = newAsks(prog.Packages)

	handlers := p.collect()
	var completions []*handler
	for _, h := range handlers {
		if !p.checkFunc(h) {
			continue
		}
		if h.badDir {
			p.shape(h)
			continue
		}
		switch h.dir.Kind {
		case directive.KindTool:
			if t, ok := p.tool(h); ok {
				proj.Tools = append(proj.Tools, t)
			}
		case directive.KindResource:
			if r, ok := p.resource(h); ok {
				proj.Resources = append(proj.Resources, r)
			}
		case directive.KindPrompt:
			if pr, ok := p.prompt(h); ok {
				proj.Prompts = append(proj.Prompts, pr)
			}
		case directive.KindComplete:
			completions = append(completions, h)
		}
	}
	for _, h := range completions {
		if c, ok := p.completion(h, proj); ok {
			proj.Completions = append(proj.Completions, c)
		}
	}
	p.duplicates(proj)
	proj.EnvReads = envReads(p.at, prog.Packages)

	proj.Views = append([]ir.View(nil), opts.Views...)
	sort.Slice(proj.Views, func(i, j int) bool { return proj.Views[i].Name < proj.Views[j].Name })
	sort.Slice(proj.Tools, func(i, j int) bool { return proj.Tools[i].Name < proj.Tools[j].Name })
	sort.Slice(proj.Resources, func(i, j int) bool { return proj.Resources[i].URI < proj.Resources[j].URI })
	sort.Slice(proj.Prompts, func(i, j int) bool { return proj.Prompts[i].Name < proj.Prompts[j].Name })
	sort.Slice(proj.Completions, func(i, j int) bool {
		a, b := proj.Completions[i], proj.Completions[j]
		if a.RefKind != b.RefKind {
			return a.RefKind < b.RefKind
		}
		if a.Ref != b.Ref {
			return a.Ref < b.Ref
		}
		return a.Arg < b.Arg
	})
	return proj, !(*diags)[before:].HasErrors()
}

// ServerName is the name a connector announces: the last element of its
// module path, skipping a major-version suffix (example.com/orders/v2 →
// orders).
func ServerName(module string) string {
	name := path.Base(module)
	if dir := path.Dir(module); dir != "." && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = path.Base(dir)
	}
	return name
}

func (p *parser) at(pos token.Pos) diag.Pos { return diag.At(p.prog.Fset, pos) }

// rel renders pos relative to the module root, for messages that mention a
// second place.
func (p *parser) rel(pos diag.Pos) string {
	if r, err := filepath.Rel(p.prog.Dir, pos.File); err == nil && !strings.HasPrefix(r, "..") {
		pos.File = r
	}
	return pos.String()
}

// collect finds every directive comment in the module and pairs it with the
// function whose doc comment holds it.
// CheckDirectives reports the mistakes in the directives themselves —
// unknown kinds and options, bad values, misplaced directives — using only
// the syntax of the loaded packages. Generate uses it when the module does
// not type-check, so a user sees those mistakes in the same run as the
// compile errors instead of only after fixing them.
func CheckDirectives(prog *load.Program, diags *diag.List) {
	p := &parser{prog: prog, diags: diags}
	p.collect()
}

func (p *parser) collect() []*handler {
	var hs []*handler
	for _, pkg := range p.prog.Packages {
		for _, f := range pkg.Syntax {
			owner := map[*ast.CommentGroup]*ast.FuncDecl{}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
					owner[fd.Doc] = fd
				}
			}
			seen := map[*ast.FuncDecl]*handler{}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					pos := p.at(c.Pos())
					switch directive.Classify(c.Text) {
					case directive.Spaced:
						directive.CheckSpaced(c.Text, pos, p.diags)
						continue
					case directive.NotDirective:
						continue
					}
					d, ok := directive.Parse(c.Text, pos, p.diags)
					kind := string(d.Kind)
					if kind == "" {
						kind = strings.Fields(strings.TrimPrefix(c.Text, directive.Prefix) + " ?")[0]
					}
					fd := owner[cg]
					switch {
					case fd == nil:
						p.diags.Errorf(pos, "misplaced-directive", hintNotOnFunc, msgNotOnFunc, kind)
						continue
					case fd.Recv != nil:
						p.diags.Errorf(pos, "method-handler", hintOnMethod, msgOnMethod, kind, fd.Name.Name)
						continue
					}
					if prev := seen[fd]; prev != nil {
						p.diags.Errorf(pos, "two-directives", hintTwoDirectives, msgTwoDirectives, fd.Name.Name, kind, prev.dir.Kind, p.rel(prev.dir.Pos))
						continue
					}
					var fn *types.Func
					if pkg.TypesInfo != nil {
						fn, _ = pkg.TypesInfo.Defs[fd.Name].(*types.Func)
					}
					h := &handler{pkg: pkg, decl: fd, fn: fn, dir: d, pos: p.at(fd.Name.Pos())}
					seen[fd] = h
					if d.Kind == "" || fn == nil {
						continue
					}
					h.badDir = !ok
					h.ref = ir.Func{PkgPath: pkg.PkgPath, PkgName: pkg.Name, Name: fd.Name.Name, Pos: h.pos, Doc: p.at(fd.Doc.Pos())}
					h.doc = strings.TrimSpace(fd.Doc.Text())
					hs = append(hs, h)
				}
			}
		}
	}
	return hs
}

// checkFunc checks what every handler needs: generated code in package main
// can call it, it is not generic, and (except completions) it has a doc
// comment.
func (p *parser) checkFunc(h *handler) bool {
	ok := true
	name := h.decl.Name.Name
	if h.pkg.PkgPath != p.root {
		if h.pkg.Name == "main" {
			p.diags.Errorf(h.pos, "main-package", hintMainPackage, msgMainPackage, name, h.pkg.PkgPath)
			ok = false
		} else if !ast.IsExported(name) {
			p.diags.Errorf(h.pos, "unexported", fmt.Sprintf(hintUnexported, exported(name)), msgUnexported, h.pkg.Name, name)
			ok = false
		}
	}
	sig := h.fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 {
		p.diags.Errorf(h.pos, "generic", hintGeneric, msgGeneric, name)
		ok = false
	}
	if h.dir.Kind != directive.KindComplete && h.doc == "" {
		p.diags.Errorf(h.pos, "no-doc", fmt.Sprintf(hintNoDoc, name), msgNoDoc, "func", name, h.dir.Kind)
		ok = false
	}
	return ok
}

func (p *parser) tool(h *handler) (ir.Tool, bool) {
	d := h.dir
	t := ir.Tool{
		Name:        d.Value("name"),
		Title:       d.Value("title"),
		Description: h.doc,
		Func:        h.ref,
		UI:          d.Value("ui"),
		Directive:   irDirective(d),
	}
	if t.Name == "" {
		t.Name = snakeCase(h.decl.Name.Name)
		if why := directive.CheckName(t.Name); why != "" {
			p.diags.Errorf(h.pos, "bad-name", "name the tool explicitly with name=...", "tool name %q (from func %s) is invalid: %s", t.Name, h.decl.Name.Name, why)
			return t, false
		}
	}
	t.Annotations = Annotations(d)
	if o, ok := d.Lookup("timeout"); ok {
		if dur, err := time.ParseDuration(o.Value); err == nil {
			t.TimeoutMS = dur.Milliseconds()
		}
	}
	if v := d.Value("visibility"); v != "" {
		t.Visibility = strings.Split(v, ",")
	}
	if v := d.Value("maxresult"); v != "" {
		fmt.Sscan(v, &t.MaxResultChars)
	}
	t.Scopes, _ = directive.Scopes(d.Value("scope"))
	if v := d.Value("ratelimit"); v != "" {
		if n, per, why := directive.Rate(v); why == "" {
			t.RateLimit, t.RatePerMS = n, per.Milliseconds()
		}
	}
	if o, has := d.Lookup("task"); has {
		t.Task = "optional"
		if o.Value == "required" {
			t.Task = "required"
		}
		t.TaskAsksFirst = d.Has("askfirst")
	}
	ok := true
	if o, has := d.Lookup("ui"); has && !p.hasView(o.Value) {
		hint := fmt.Sprintf(hintNoViews, o.Value)
		if len(p.views) > 0 {
			hint = fmt.Sprintf(hintViews, p.viewNames())
		}
		p.diags.Errorf(o.ValuePos, "unknown-view", hint, msgUnknownView, o.Value, o.Value, o.Value)
		ok = false
	}
	sigOK := p.signature(h, func(r types.Type) (ir.ResultKind, bool) { return p.toolResult(r) })
	if !sigOK {
		return t, false
	}
	t.Sig = h.sig
	t.NeverAsks = p.asks.neverAsks(h.fn)

	t.InputSchema = emptyInput
	if h.in != nil {
		s, sok := p.schemas.Object(h.in, h.decl.Name.Pos(), p.diags)
		t.InputSchema = s
		ok = ok && sok
		if sok {
			t.InputTypes = p.schemas.Types(h.in, false)
			t.Decls = p.schemas.Decls(h.in, false)
		}
	}
	if h.sig.Kind == ir.ResultStruct {
		res := h.fn.Type().(*types.Signature).Results().At(0).Type()
		if ptr, isPtr := res.(*types.Pointer); isPtr {
			res = ptr.Elem()
		}
		s, sok := p.schemas.Output(res, h.decl.Type.Results.Pos(), p.diags)
		t.OutputSchema = s
		ok = ok && sok
		if sok {
			t.OutputTypes = p.schemas.Types(res, true)
			t.Decls = append(t.Decls, p.schemas.Decls(res, true)...)
		}
	}
	return t, ok
}

// shape checks what does not depend on the options of a handler whose
// directive has errors — its signature and the schemas of its types — so
// that a misspelt option does not hide a bad default= on a field. The
// options are left out (they are what is wrong), and nothing is added to
// the project.
func (p *parser) shape(h *handler) {
	bare := *h
	bare.dir = &directive.Directive{Kind: h.dir.Kind, Pos: h.dir.Pos}
	switch h.dir.Kind {
	case directive.KindTool:
		p.tool(&bare)
	case directive.KindResource:
		p.signature(&bare, p.resourceResult)
	case directive.KindPrompt:
		p.prompt(&bare)
	case directive.KindComplete:
		p.completeSignature(&bare, &ir.Completion{})
	}
}

// irDirective copies a directive's options with their positions into the
// IR, so later checks (generator/lint) can point at an option.
func irDirective(d *directive.Directive) ir.Directive {
	out := ir.Directive{Pos: d.Pos}
	for _, o := range d.Options {
		opt := ir.Option{Name: o.Name, Value: o.Value, Pos: o.Pos}
		if o.HasValue {
			opt.ValuePos = o.ValuePos
		}
		out.Options = append(out.Options, opt)
	}
	return out
}

// Annotations computes the four tool hints from a tool directive's flags.
// Every hint is explicit; when a flag is absent the MCP default applies,
// except that readonly implies non-destructive and idempotent, and additive
// marks a writing tool as non-destructive.
func Annotations(d *directive.Directive) ir.Annotations {
	a := ir.Annotations{OpenWorld: !d.Has("closedworld")}
	switch {
	case d.Has("readonly"):
		a.ReadOnly, a.Idempotent = true, true
	default:
		a.Destructive = !d.Has("additive")
		a.Idempotent = d.Has("idempotent")
	}
	return a
}

func (p *parser) hasView(name string) bool {
	for _, v := range p.views {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (p *parser) viewNames() string {
	var s []string
	for _, v := range p.views {
		s = append(s, v.Name)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
