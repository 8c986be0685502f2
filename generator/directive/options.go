package directive

import (
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/ratespec"
	"github.com/mcpgen/mcpgen/internal/toolname"
)

// valueKind says what an option's value must look like.
type valueKind int

const (
	flag       valueKind = iota // no value
	nameValue                   // an MCP name: 1–128 of A-Za-z0-9_-.
	textValue                   // any non-empty text
	duration                    // a positive Go duration
	visibility                  // model, app or model,app
	count                       // a positive number of characters
	uriValue                    // an absolute URI or URI template
	mimeValue                   // type/subtype
	viewValue                   // a view name
	scopeValue                  // space-separated OAuth scopes
	rateValue                   // N/DURATION
	taskValue                   // no value (the tool may run as a task) or required
)

type optSpec struct {
	kind    valueKind
	example string // an example value for hints
}

// options lists the valid options of every kind.
var options = map[Kind]map[string]optSpec{
	KindTool: {
		"name":        {nameValue, "find_orders"},
		"title":       {textValue, `"Find orders"`},
		"readonly":    {flag, ""},
		"destructive": {flag, ""},
		"idempotent":  {flag, ""},
		"additive":    {flag, ""},
		"openworld":   {flag, ""},
		"closedworld": {flag, ""},
		"ui":          {viewValue, "card"},
		"timeout":     {duration, "30s"},
		"visibility":  {visibility, "model,app"},
		"maxresult":   {count, "50000"},
		"scope":       {scopeValue, `"notes:write"`},
		"ratelimit":   {rateValue, "10/1m"},
		"task":        {taskValue, "required"},
		"askfirst":    {flag, ""},
	},
	KindResource: {
		"uri":   {uriValue, "file:///notes/{id}"},
		"mime":  {mimeValue, "text/plain"},
		"name":  {nameValue, "notes"},
		"title": {textValue, `"Notes"`},
		"scope": {scopeValue, `"notes:read"`},
	},
	KindPrompt: {
		"name":  {nameValue, "summarize"},
		"title": {textValue, `"Summarize"`},
		"scope": {scopeValue, `"notes:read"`},
	},
	KindComplete: {
		"prompt":   {nameValue, "summarize"},
		"resource": {uriValue, "file:///notes/{id}"},
		"arg":      {textValue, "id"},
	},
}

// conflicts lists pairs of flags that cannot both be given.
var conflicts = [][2]string{{"readonly", "destructive"}, {"readonly", "additive"}, {"additive", "destructive"}, {"openworld", "closedworld"}}

// Options returns the valid option names of kind, sorted.
func Options(kind Kind) []string { return sortedKeys(options[kind]) }

// MaxResultChars is the largest maxresult hosts accept.
const MaxResultChars = 500000

// check validates the options of d (its kind is known).
func check(d *Directive, diags *diag.List) {
	specs := options[d.Kind]
	seen := map[string]bool{}
	for _, o := range d.Options {
		spec, ok := specs[o.Name]
		if !ok {
			diags.Errorf(o.Pos, "unknown-option", fmt.Sprintf(hintOptions, strings.Join(Options(d.Kind), ", ")),
				msgUnknownOption, o.Name, d.Kind, didYouMean(o.Name, Options(d.Kind)))
			continue
		}
		if seen[o.Name] {
			diags.Errorf(o.Pos, "duplicate-option", hintDuplicate, msgDuplicateOption, o.Name)
			continue
		}
		seen[o.Name] = true
		checkValue(o, spec, diags)
	}
	for _, c := range conflicts {
		a, aok := d.Lookup(c[0])
		_, bok := d.Lookup(c[1])
		if aok && bok {
			second := a
			for _, o := range d.Options {
				if o.Name == c[0] || o.Name == c[1] {
					second = o
				}
			}
			diags.Errorf(second.Pos, "conflicting-options", hintConflict, msgConflict, c[0], c[1])
		}
	}
	switch d.Kind {
	case KindTool:
		if o, ok := d.Lookup("askfirst"); ok && !d.Has("task") {
			diags.Errorf(o.Pos, "missing-option", "add task, e.g. //mcpgen:tool task askfirst",
				"askfirst needs task: only a task tool asks its questions before its task is created")
		}
	case KindResource:
		if !d.Has("uri") {
			diags.Errorf(d.Pos, "missing-option", "add uri=..., e.g. //mcpgen:resource uri=file:///notes/{id}", "//mcpgen:resource needs uri=")
		}
	case KindComplete:
		if d.Has("prompt") == d.Has("resource") {
			diags.Errorf(d.Pos, "missing-option", hintCompleteTarget, msgCompleteTarget)
		}
		if !d.Has("arg") {
			diags.Errorf(d.Pos, "missing-option", hintCompleteArg, msgCompleteArg)
		}
	}
}

func checkValue(o Option, spec optSpec, diags *diag.List) {
	if spec.kind == taskValue {
		if o.HasValue && o.Value != "required" && o.Value != "optional" {
			diags.Errorf(o.ValuePos, "bad-task", hintBadTask, msgBadTask, o.Value)
		}
		return
	}
	if spec.kind == flag {
		if o.HasValue {
			diags.Errorf(o.Pos, "flag-value", fmt.Sprintf(hintFlagWithValue, o.Name), msgFlagWithValue, o.Name)
		}
		return
	}
	if !o.HasValue {
		diags.Errorf(o.Pos, "missing-value", fmt.Sprintf(hintMissingValue, o.Name, spec.example), msgMissingValue, o.Name)
		return
	}
	v := o.Value
	if v == "" {
		diags.Errorf(o.ValuePos, "empty-value", fmt.Sprintf(hintMissingValue, o.Name, spec.example), msgEmptyValue, o.Name)
		return
	}
	switch spec.kind {
	case nameValue:
		if why := CheckName(v); why != "" {
			diags.Errorf(o.ValuePos, "bad-name", hintBadName, msgBadName, v, why)
		}
	case duration:
		dur, err := time.ParseDuration(v)
		switch {
		case err != nil:
			diags.Errorf(o.ValuePos, "bad-timeout", hintBadTimeout, msgBadTimeout, v, "not a duration")
		case dur <= 0:
			diags.Errorf(o.ValuePos, "bad-timeout", hintBadTimeout, msgBadTimeout, v, "must be positive")
		}
	case visibility:
		seen := map[string]bool{}
		for _, part := range strings.Split(v, ",") {
			if (part != "model" && part != "app") || seen[part] {
				diags.Errorf(o.ValuePos, "bad-visibility", hintBadVisibility, msgBadVisibility, v)
				break
			}
			seen[part] = true
		}
	case count:
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			diags.Errorf(o.ValuePos, "bad-maxresult", hintBadMaxResult, msgBadMaxResult, v, "not a whole number")
		case n < 1 || n > MaxResultChars:
			diags.Errorf(o.ValuePos, "bad-maxresult", hintBadMaxResult, msgBadMaxResult, v, "out of range")
		}
	case uriValue:
		// Template expressions are not valid URI characters; check the
		// template with each {var} replaced.
		plain := templateExpr.ReplaceAllString(v, "x")
		u, err := url.Parse(plain)
		switch {
		case strings.ContainsAny(v, " \t"):
			diags.Errorf(o.ValuePos, "bad-uri", hintBadURI, msgBadURI, v, "contains spaces")
		case err != nil:
			diags.Errorf(o.ValuePos, "bad-uri", hintBadURI, msgBadURI, v, "not a URI")
		case u.Scheme == "":
			diags.Errorf(o.ValuePos, "bad-uri", hintBadURI, msgBadURI, v, "no scheme")
		case strings.Count(v, "{") != strings.Count(v, "}"):
			diags.Errorf(o.ValuePos, "bad-uri", hintBadURI, msgBadURI, v, "unbalanced braces")
		}
	case mimeValue:
		if _, _, err := mime.ParseMediaType(v); err != nil || !strings.Contains(v, "/") {
			diags.Errorf(o.ValuePos, "bad-mime", hintBadMIME, msgBadMIME, v)
		}
	case viewValue:
		if !ViewName(v) {
			diags.Errorf(o.ValuePos, "bad-view", hintBadViewName, msgBadViewName, v)
		}
	case scopeValue:
		if _, why := Scopes(v); why != "" {
			diags.Errorf(o.ValuePos, "bad-scope", hintBadScope, msgBadScope, v, why)
		}
	case rateValue:
		if _, _, why := Rate(v); why != "" {
			diags.Errorf(o.ValuePos, "bad-ratelimit", hintBadRate, msgBadRate, v, why)
		}
	}
}

// Scopes splits a scope= value into OAuth scope tokens (RFC 6749 §3.3:
// printable ASCII without space, '"' or '\\'), and reports why it is not
// valid ("" when it is).
func Scopes(v string) ([]string, string) {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return nil, "no scope"
	}
	seen := map[string]bool{}
	for _, s := range fields {
		for _, r := range s {
			if r < 0x21 || r > 0x7e || r == '"' || r == '\\' {
				return nil, fmt.Sprintf("character %q is not allowed in a scope", r)
			}
		}
		if seen[s] {
			return nil, fmt.Sprintf("scope %q is given twice", s)
		}
		seen[s] = true
	}
	return fields, ""
}

// Rate parses a ratelimit= value, N/DURATION: a positive number of calls
// and a positive Go duration, or a bare unit s, m or h meaning one of it
// (the same syntax as the connector's --rate-limit flag, ratespec.ParseRate).
// It reports why the value is not valid ("" when it is).
func Rate(v string) (int, time.Duration, string) {
	n, per, err := ratespec.Parse(v)
	if err != nil {
		return 0, 0, err.Error()
	}
	return n, per, ""
}

// CheckName reports why s is not a valid MCP tool, prompt or resource name
// ("" when it is).
func CheckName(s string) string { return toolname.Check(s) }

// ViewName reports whether s can name a view file ui/s.tsx.
func ViewName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
