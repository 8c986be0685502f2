// Package meta reads a connector's project file, mcpgen.json, into an
// ir.Meta: what the connector is called and who makes it, the settings a
// user gives when installing it (each an environment variable), and where a
// release is published. mcpgen build turns it into an MCP Bundle's
// manifest, the MCP Registry's server.json and the binary's server card;
// lint checks it. Mistakes are positioned diagnostics at the field.
package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// File is the project file's name at the module root.
const File = "mcpgen.json"

// SettingTypes are the types a setting may have (those of an MCP Bundle's
// user_config).
var SettingTypes = []string{"string", "number", "boolean", "directory", "file"}

var (
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	keyName = regexp.MustCompile(`^[a-z0-9_]+$`)
)

// Load reads dir/mcpgen.json. It returns nil (and reports nothing) when
// the file does not exist, and nil with diagnostics when it cannot be
// used. module is the module path, from which RegistryName is derived
// when the file does not give one.
func Load(dir, module string, diags *diag.List) *ir.Meta {
	file := filepath.Join(dir, File)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	at := diag.Pos{File: file, Line: 1, Col: 1}
	if err != nil {
		diags.Errorf(at, "meta-read", hintRead, msgRead, File, err)
		return nil
	}
	return Parse(file, data, module, diags)
}

// Parse parses data, the contents of the project file at file (the path
// positions name), as Load does.
func Parse(file string, data []byte, module string, diags *diag.List) *ir.Meta {
	at := diag.Pos{File: file, Line: 1, Col: 1}
	v, err := hujson.Parse(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at = posAt(file, data, int(se.Offset))
		}
		diags.Errorf(at, "meta-syntax", hintSyntax, msgSyntax, File, err)
		return nil
	}
	m := &ir.Meta{File: file, Pos: map[string]diag.Pos{}}
	positions(file, data, v, "", m.Pos)
	ok := checkFields(m, file, data, &v, "", reflect.TypeOf(ir.Meta{}), diags)
	std := v.Clone()
	std.Standardize()
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(std.Pack()))
	if err := dec.Decode(m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
			diags.Errorf(m.At(ptr), "meta-type", hintType, msgType, te.Field, te.Type.String())
		} else {
			diags.Errorf(at, "meta-syntax", hintSyntax, msgSyntax, File, err)
		}
		return nil
	}
	m.File = file
	if m.RegistryName == "" {
		m.RegistryName = RegistryNameOf(module)
	}
	if !settings(m, diags) {
		return nil
	}
	return m
}

// settings fills in the defaults of every setting and checks them.
func settings(m *ir.Meta, diags *diag.List) bool {
	ok := true
	keys, envs := map[string]bool{}, map[string]bool{}
	for i := range m.Settings {
		s := &m.Settings[i]
		ptr := "/settings/" + strconv.Itoa(i)
		if s.Env == "" {
			diags.Errorf(m.At(ptr), "meta-setting", hintSettingEnv, msgSettingEnv, i+1)
			ok = false
			continue
		}
		if !envName.MatchString(s.Env) {
			diags.Errorf(m.At(ptr+"/env"), "meta-setting", hintEnvName, msgEnvName, s.Env)
			ok = false
		}
		if s.Key == "" {
			s.Key = strings.ToLower(s.Env)
		} else if !keyName.MatchString(s.Key) {
			diags.Errorf(m.At(ptr+"/key"), "meta-setting", hintKey, msgKey, s.Key)
			ok = false
		}
		if s.Type == "" {
			s.Type = "string"
		} else if !contains(SettingTypes, s.Type) {
			diags.Errorf(m.At(ptr+"/type"), "meta-setting", hintSettingTyp, msgSettingType, s.Env, s.Type)
			ok = false
		}
		if s.Title == "" {
			s.Title = titleOf(s.Key)
		}
		if keys[s.Key] {
			diags.Errorf(m.At(ptr+"/key"), "meta-setting", hintSettingDup, msgSettingDup, s.Env, "key", s.Key)
			ok = false
		}
		if envs[s.Env] {
			diags.Errorf(m.At(ptr+"/env"), "meta-setting", hintSettingDup, msgSettingDup, s.Env, "env", s.Env)
			ok = false
		}
		keys[s.Key], envs[s.Env] = true, true
	}
	return ok
}

// RegistryNameOf derives a reverse-DNS name from a module path, the way
// the MCP Registry names namespaces: github.com/acme/orders →
// io.github.acme/orders, example.com/tools/orders → com.example/orders. A
// module path without a host gives local/NAME.
func RegistryNameOf(module string) string {
	name := lastElem(module)
	first, rest, _ := strings.Cut(module, "/")
	if !strings.Contains(first, ".") {
		return "local/" + name
	}
	labels := strings.Split(first, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	ns := strings.Join(labels, ".")
	if first == "github.com" {
		// The registry's namespace for a GitHub account.
		ns = "io.github"
	}
	if (first == "github.com" || first == "gitlab.com") && rest != "" {
		owner, _, _ := strings.Cut(rest, "/")
		ns += "." + owner
	}
	return ns + "/" + name
}

// lastElem is the module's last path element, skipping a major-version
// suffix (example.com/orders/v2 → orders).
func lastElem(module string) string {
	name := path.Base(module)
	if dir := path.Dir(module); dir != "." && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = path.Base(dir)
	}
	return name
}

// checkFields reports every member of v's objects that t has no field
// for, with the closest valid name.
func checkFields(m *ir.Meta, file string, data []byte, v *hujson.Value, ptr string, t reflect.Type, diags *diag.List) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	ok := true
	switch val := v.Value.(type) {
	case *hujson.Object:
		if t.Kind() != reflect.Struct {
			return true
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || name == "file" {
				continue
			}
			fields[name] = f.Type
			names = append(names, name)
		}
		sort.Strings(names)
		for i := range val.Members {
			mem := &val.Members[i]
			name := mem.Name.Value.(hujson.Literal).String()
			ft, found := fields[name]
			if !found {
				where := ""
				if ptr != "" {
					where = " at " + ptr
				}
				hint := fmt.Sprintf(hintUnknown, strings.Join(names, ", "))
				if c := diag.Closest(name, names); c != "" {
					hint = fmt.Sprintf("did you mean %q? ", c) + hint
				}
				diags.Errorf(posAt(file, data, mem.Name.StartOffset), "meta-unknown", hint, msgUnknown, name, where)
				ok = false
				continue
			}
			if !checkFields(m, file, data, &mem.Value, ptr+"/"+name, ft, diags) {
				ok = false
			}
		}
	case *hujson.Array:
		if t.Kind() != reflect.Slice {
			return true
		}
		for i := range val.Elements {
			if !checkFields(m, file, data, &val.Elements[i], ptr+"/"+strconv.Itoa(i), t.Elem(), diags) {
				ok = false
			}
		}
	}
	return ok
}

// positions records where every value of v was written, by JSON pointer.
func positions(file string, data []byte, v hujson.Value, ptr string, out map[string]diag.Pos) {
	out[ptr] = posAt(file, data, v.StartOffset)
	switch val := v.Value.(type) {
	case *hujson.Object:
		for _, mem := range val.Members {
			name := mem.Name.Value.(hujson.Literal).String()
			positions(file, data, mem.Value, ptr+"/"+name, out)
		}
	case *hujson.Array:
		for i, e := range val.Elements {
			positions(file, data, e, ptr+"/"+strconv.Itoa(i), out)
		}
	}
}

// posAt converts a byte offset into a 1-based line and column.
func posAt(file string, data []byte, off int) diag.Pos {
	off = min(max(off, 0), len(data))
	// A value's StartOffset includes the whitespace before it.
	for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
		off++
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return diag.Pos{File: file, Line: line, Col: col}
}

// titleOf proposes a title for a key: api_key → "Api key".
func titleOf(key string) string {
	s := strings.ReplaceAll(key, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
