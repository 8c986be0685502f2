package inspector

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Fixture is one canned rendering of a tool's view, read from
// fixtures/TOOL/NAME.json.
type Fixture struct {
	Tool string `json:"tool"`
	Name string `json:"name"`
	// File is the fixture's path relative to the project, with slashes.
	File string `json:"file"`
	// Input is the tool's arguments ({} when the file has none).
	Input json.RawMessage `json:"input"`
	// Result is a CallToolResult (normalized: a bare structuredContent is
	// wrapped, with its JSON text as content).
	Result json.RawMessage `json:"result"`
	// Calls are canned CallToolResults (normalized) for tools the view
	// calls, by tool name.
	Calls map[string]json.RawMessage `json:"calls,omitempty"`
}

// LoadFixtures reads dir/fixtures/TOOL/NAME.json, sorted by tool and name.
// A file that is not valid is left out with a diagnostic at its
// file:line:col; a project without fixtures has none and no diagnostics.
func LoadFixtures(dir string) ([]Fixture, diag.List) {
	var diags diag.List
	root := filepath.Join(dir, "fixtures")
	tools, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			diags.Errorf(diag.Pos{File: root}, "fixture-dir", "", "reading fixtures: %v", err)
		}
		return nil, diags
	}
	var out []Fixture
	for _, t := range tools {
		if !t.IsDir() {
			if strings.HasSuffix(t.Name(), ".json") {
				diags.Errorf(diag.Pos{File: filepath.Join(root, t.Name())}, "fixture-path",
					"move it to fixtures/TOOL/"+t.Name()+", where TOOL is the tool's name", "a fixture must be in a directory named after its tool")
			}
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, t.Name()))
		if err != nil {
			diags.Errorf(diag.Pos{File: filepath.Join(root, t.Name())}, "fixture-dir", "", "reading fixtures: %v", err)
			continue
		}
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".json") {
				continue
			}
			path := filepath.Join(root, t.Name(), f.Name())
			fx, ok := loadFixture(path, &diags)
			if !ok {
				continue
			}
			fx.Tool = t.Name()
			fx.Name = strings.TrimSuffix(f.Name(), ".json")
			fx.File = filepath.ToSlash(filepath.Join("fixtures", t.Name(), f.Name()))
			out = append(out, fx)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].Name < out[j].Name
	})
	return out, diags
}

func loadFixture(path string, diags *diag.List) (Fixture, bool) {
	var fx Fixture
	data, err := os.ReadFile(path)
	if err != nil {
		diags.Errorf(diag.Pos{File: path}, "fixture-read", "", "reading the fixture: %v", err)
		return fx, false
	}
	var raw struct {
		Input  json.RawMessage            `json:"input"`
		Result json.RawMessage            `json:"result"`
		Calls  map[string]json.RawMessage `json:"calls"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		pos := diag.Pos{File: path, Line: 1, Col: 1}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			pos = offsetPos(path, data, se.Offset-1) // Offset is past the bad byte
		case errors.As(err, &te):
			pos = offsetPos(path, data, te.Offset)
		default:
			if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				if i := bytes.Index(data, []byte(name)); i >= 0 {
					pos = offsetPos(path, data, int64(i))
				}
			}
		}
		diags.Errorf(pos, "fixture-json", `a fixture is {"input": {...}, "result": {...}, "calls": {"TOOL": {...}}}`, "invalid fixture: %v", err)
		return fx, false
	}
	if len(raw.Result) == 0 {
		diags.Errorf(diag.Pos{File: path, Line: 1, Col: 1}, "fixture-result",
			`add "result": the tool's CallToolResult or its structuredContent`, "the fixture has no result")
		return fx, false
	}
	fx.Input = raw.Input
	if len(fx.Input) == 0 || string(fx.Input) == "null" {
		fx.Input = json.RawMessage("{}")
	} else if !bytes.HasPrefix(bytes.TrimSpace(fx.Input), []byte("{")) {
		diags.Errorf(offsetPos(path, data, int64(bytes.Index(data, []byte(`"input"`)))+1), "fixture-input",
			"give the tool's arguments as a JSON object", "the fixture's input is not an object")
		return fx, false
	}
	fx.Result = NormalizeResult(raw.Result)
	for name, r := range raw.Calls {
		if fx.Calls == nil {
			fx.Calls = map[string]json.RawMessage{}
		}
		fx.Calls[name] = NormalizeResult(r)
	}
	return fx, true
}

// NormalizeResult returns r as a CallToolResult: r itself when it is an
// object with a "content" array or a "structuredContent" member, else a
// result whose structuredContent is r and whose content is r's JSON text.
func NormalizeResult(r json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(r, &obj) == nil {
		if c, ok := obj["content"]; ok && bytes.HasPrefix(bytes.TrimSpace(c), []byte("[")) {
			return r
		}
		if _, ok := obj["structuredContent"]; ok {
			if _, ok := obj["content"]; !ok {
				obj["content"] = json.RawMessage("[]")
				b, _ := json.Marshal(obj)
				return b
			}
			return r
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, r); err != nil {
		compact.Reset()
		compact.Write(r)
	}
	b, _ := json.Marshal(map[string]any{
		"content":           []map[string]string{{"type": "text", "text": compact.String()}},
		"structuredContent": json.RawMessage(compact.Bytes()),
	})
	return b
}

// offsetPos turns a byte offset into a 1-based line and column.
func offsetPos(path string, data []byte, off int64) diag.Pos {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return diag.Pos{File: path, Line: line, Col: col}
}
