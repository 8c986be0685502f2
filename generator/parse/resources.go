package parse

import (
	"fmt"
	"go/types"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/directive"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/schema"
)

func (p *parser) resource(h *handler) (ir.Resource, bool) {
	d := h.dir
	uriOpt, _ := d.Lookup("uri")
	r := ir.Resource{
		URI:         uriOpt.Value,
		Name:        d.Value("name"),
		Title:       d.Value("title"),
		Description: h.doc,
		MIMEType:    d.Value("mime"),
		Func:        h.ref,
		Directive:   irDirective(d),
	}
	r.Scopes, _ = directive.Scopes(d.Value("scope"))
	if r.Name == "" {
		r.Name = snakeCase(h.decl.Name.Name)
	}
	if !p.signature(h, p.resourceResult) {
		return r, false
	}
	r.Sig = h.sig
	ok := true
	vars, bad := directive.TemplateVars(r.URI)
	// Positions inside the uri= value (after its quote when quoted).
	varPos := func(off int) diag.Pos {
		pos := uriOpt.ValuePos
		if uriOpt.Quoted {
			pos.Col++
		}
		pos.Col += off
		return pos
	}
	for _, b := range bad {
		p.diags.Errorf(varPos(strings.Index(r.URI, b)), "bad-template", hintBadTemplate, msgBadTemplateExpr, b)
		ok = false
	}
	r.Template = len(vars) > 0 || len(bad) > 0
	var fields []schema.Field
	if h.in != nil {
		fields = p.schemas.Fields(h.in)
	}
	if !r.Template {
		if len(fields) > 0 {
			var names []string
			for _, f := range fields {
				names = append(names, f.Name)
			}
			p.diags.Errorf(h.pos, "fixed-uri-input", hintFixedInput, msgFixedInput, r.URI, p.typeString(h.in), fieldNames(names))
			ok = false
		}
		return r, ok
	}
	if h.in == nil && len(vars) > 0 {
		p.diags.Errorf(h.pos, "template-no-input", fmt.Sprintf(hintTemplateInput, h.decl.Name.Name), msgTemplateNoInput, r.URI, h.decl.Name.Name)
		return r, false
	}
	byName := map[string]schema.Field{}
	var names []string
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	sort.Strings(names)
	for _, v := range vars {
		f, found := byName[v.Name]
		if !found {
			p.diags.Errorf(varPos(v.Offset), "unbound-variable", fmt.Sprintf(hintTemplateVar, v.Name, p.typeString(h.in), fieldNames(names)), msgTemplateVar, v.Name, p.typeString(h.in))
			ok = false
			continue
		}
		kind := basicKind(f.Type)
		if kind == "" {
			p.diags.Errorf(p.at(f.Pos), "variable-type", hintVarType, msgVarType, f.GoName, v.Name, p.typeString(f.Type))
			ok = false
			continue
		}
		r.Vars = append(r.Vars, ir.TemplateVar{Name: v.Name, Field: f.GoName, Kind: kind})
	}
	return r, ok
}

func (p *parser) prompt(h *handler) (ir.Prompt, bool) {
	d := h.dir
	pr := ir.Prompt{
		Name:        d.Value("name"),
		Title:       d.Value("title"),
		Description: h.doc,
		Func:        h.ref,
		Directive:   irDirective(d),
	}
	pr.Scopes, _ = directive.Scopes(d.Value("scope"))
	if pr.Name == "" {
		pr.Name = snakeCase(h.decl.Name.Name)
	}
	if !p.signature(h, p.promptResult) {
		return pr, false
	}
	pr.Sig = h.sig
	if h.in == nil {
		return pr, true
	}
	ok := true
	for _, f := range p.schemas.Fields(h.in) {
		if basicKind(f.Type) != "string" {
			p.diags.Errorf(p.at(f.Pos), "prompt-argument-type", hintPromptArgType, msgPromptArgType, f.Name, f.GoName, p.typeString(f.Type))
			ok = false
			continue
		}
		pr.Arguments = append(pr.Arguments, ir.PromptArg{Name: f.Name, Field: f.GoName, Description: f.Description, Required: f.Required})
	}
	return pr, ok
}

func (p *parser) completion(h *handler, proj *ir.Project) (ir.Completion, bool) {
	d := h.dir
	c := ir.Completion{Arg: d.Value("arg"), Func: h.ref}
	ok := p.completeSignature(h, &c)
	argOpt, _ := d.Lookup("arg")
	if o, isPrompt := d.Lookup("prompt"); isPrompt {
		c.RefKind, c.Ref = "prompt", o.Value
		var pr *ir.Prompt
		var names []string
		for i := range proj.Prompts {
			names = append(names, proj.Prompts[i].Name)
			if proj.Prompts[i].Name == o.Value {
				pr = &proj.Prompts[i]
			}
		}
		if pr == nil {
			sort.Strings(names)
			p.diags.Errorf(o.ValuePos, "unknown-prompt", fmt.Sprintf(hintCompleteRef, "prompt", fieldNames(names)), msgCompleteRef, "prompt", o.Value, "prompt")
			return c, false
		}
		var args []string
		found := false
		for _, a := range pr.Arguments {
			args = append(args, a.Name)
			found = found || a.Name == c.Arg
		}
		if !found {
			p.diags.Errorf(argOpt.ValuePos, "unknown-argument", fmt.Sprintf(hintCompleteArgs, "argument", fieldNames(args)), msgCompleteArg, "prompt", pr.Name, "argument", c.Arg)
			return c, false
		}
		return c, ok
	}
	o, _ := d.Lookup("resource")
	c.RefKind, c.Ref = "resource", o.Value
	var r *ir.Resource
	var uris []string
	for i := range proj.Resources {
		if proj.Resources[i].Template {
			uris = append(uris, proj.Resources[i].URI)
		}
		if proj.Resources[i].URI == o.Value {
			r = &proj.Resources[i]
		}
	}
	switch {
	case r == nil:
		sort.Strings(uris)
		p.diags.Errorf(o.ValuePos, "unknown-resource", fmt.Sprintf(hintCompleteRef, "resource template", fieldNames(uris)), msgCompleteRef, "resource", o.Value, "resource template")
		return c, false
	case !r.Template:
		p.diags.Errorf(o.ValuePos, "fixed-resource", hintCompleteFixed, msgCompleteFixed, r.URI)
		return c, false
	}
	var vars []string
	found := false
	for _, v := range r.Vars {
		vars = append(vars, v.Name)
		found = found || v.Name == c.Arg
	}
	if !found {
		p.diags.Errorf(argOpt.ValuePos, "unknown-argument", fmt.Sprintf(hintCompleteArgs, "variable", fieldNames(vars)), msgCompleteArg, "resource template", r.URI, "variable", c.Arg)
		return c, false
	}
	return c, ok
}

// completeSignature checks func([ctx,] partial string [, args map[string]string]) ([]string, error).
func (p *parser) completeSignature(h *handler, c *ir.Completion) bool {
	sig := h.fn.Type().(*types.Signature)
	name := h.decl.Name.Name
	bad := func(why string) bool {
		p.diags.Errorf(h.pos, "bad-signature", fmt.Sprintf(hintCompleteShape, name), msgBadSignature, name, h.dir.Kind, why)
		return false
	}
	params := sig.Params()
	i := 0
	if i < params.Len() && isContext(params.At(i).Type()) {
		i++
	}
	if i >= params.Len() || !isString(params.At(i).Type()) || sig.Variadic() {
		return bad("it must take the partial value as a string")
	}
	i++
	if i < params.Len() {
		if !types.Identical(params.At(i).Type(), types.NewMap(types.Typ[types.String], types.Typ[types.String])) {
			return bad("the parameter after the partial value must be map[string]string")
		}
		c.Context = true
		i++
	}
	if i < params.Len() {
		return bad("it has too many parameters")
	}
	res := sig.Results()
	if res.Len() != 2 || !types.Identical(res.At(0).Type(), types.NewSlice(types.Typ[types.String])) || !isError(res.At(1).Type()) {
		return bad("it must return ([]string, error)")
	}
	c.Ctx = params.Len() > 0 && isContext(params.At(0).Type())
	return true
}

// duplicates reports names and URIs declared twice, at both places.
func (p *parser) duplicates(proj *ir.Project) {
	type decl struct {
		key string
		fn  ir.Func
	}
	check := func(what string, decls []decl, msg, hint string) {
		first := map[string]ir.Func{}
		for _, d := range decls {
			f, dup := first[d.key]
			if !dup {
				first[d.key] = d.fn
				continue
			}
			a := fmt.Sprintf("%s (%s)", f.Name, p.rel(f.Pos))
			b := fmt.Sprintf("%s (%s)", d.fn.Name, p.rel(d.fn.Pos))
			if what == "" {
				p.diags.Errorf(f.Pos, "duplicate", hint, msg, d.key, a, b)
				p.diags.Errorf(d.fn.Pos, "duplicate", hint, msg, d.key, a, b)
			} else {
				p.diags.Errorf(f.Pos, "duplicate", hint, msg, what, d.key, a, b)
				p.diags.Errorf(d.fn.Pos, "duplicate", hint, msg, what, d.key, a, b)
			}
		}
	}
	var tools, prompts, resources []decl
	for _, t := range proj.Tools {
		tools = append(tools, decl{t.Name, t.Func})
	}
	for _, pr := range proj.Prompts {
		prompts = append(prompts, decl{pr.Name, pr.Func})
	}
	for _, r := range proj.Resources {
		resources = append(resources, decl{r.URI, r.Func})
	}
	check("tool", tools, msgDuplicateName, hintDuplicateName)
	check("prompt", prompts, msgDuplicateName, hintDuplicateName)
	check("", resources, msgDuplicateURI, hintDuplicateURI)
	seen := map[string]ir.Func{}
	for _, c := range proj.Completions {
		key := c.RefKind + "\x00" + c.Ref + "\x00" + c.Arg
		if f, dup := seen[key]; dup {
			a := fmt.Sprintf("%s (%s)", f.Name, p.rel(f.Pos))
			b := fmt.Sprintf("%s (%s)", c.Func.Name, p.rel(c.Func.Pos))
			p.diags.Errorf(f.Pos, "duplicate", hintDuplicateComp, msgDuplicateComp, c.RefKind, c.Ref, c.Arg, a, b)
			p.diags.Errorf(c.Func.Pos, "duplicate", hintDuplicateComp, msgDuplicateComp, c.RefKind, c.Ref, c.Arg, a, b)
			continue
		}
		seen[key] = c.Func
	}
}
