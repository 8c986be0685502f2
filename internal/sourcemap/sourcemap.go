// Package sourcemap turns a place in a bundled view (a line and column of
// its document, as a browser reports an error's) into the place in the
// view's source it was made from, through the source map esbuild writes with
// the bundle: `ui/summary.tsx:19:5` instead of `/view/5924...:21:1033`. It
// reads source maps version 3 (https://tc39.es/ecma426/), mappings only.
package sourcemap

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Map is a parsed source map: for each generated line, its segments.
type Map struct {
	sources []string
	lines   [][]segment
}

// segment maps one generated column onward to a place in a source; src is
// -1 for a segment that maps to no source.
type segment struct {
	col, src, line, srcCol int
}

// Pos is a place in a source: its path as the map names it, line and
// column from 1.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Parse reads a source map. A malformed one is an error naming what is
// wrong; a map is never partly read.
func Parse(data []byte) (*Map, error) {
	var raw struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("sourcemap: %v", err)
	}
	if raw.Version != 3 {
		return nil, fmt.Errorf("sourcemap: version %d, want 3", raw.Version)
	}
	m := &Map{sources: raw.Sources}
	var src, line, srcCol int
	for _, l := range strings.Split(raw.Mappings, ";") {
		var segs []segment
		col := 0
		for _, s := range strings.Split(l, ",") {
			if s == "" {
				continue
			}
			f, err := decodeVLQ(s)
			if err != nil {
				return nil, err
			}
			switch len(f) {
			case 1:
				col += f[0]
				segs = append(segs, segment{col: col, src: -1})
			case 4, 5:
				col += f[0]
				src += f[1]
				line += f[2]
				srcCol += f[3]
				if src < 0 || src >= len(m.sources) || line < 0 || srcCol < 0 || col < 0 {
					return nil, fmt.Errorf("sourcemap: segment %q points outside the map", s)
				}
				segs = append(segs, segment{col: col, src: src, line: line, srcCol: srcCol})
			default:
				return nil, fmt.Errorf("sourcemap: segment %q has %d fields, want 1, 4 or 5", s, len(f))
			}
		}
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].col < segs[j].col })
		m.lines = append(m.lines, segs)
	}
	return m, nil
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var errVLQ = errors.New("sourcemap: malformed VLQ in mappings")

// decodeVLQ reads the base64 VLQ numbers of one segment.
func decodeVLQ(s string) ([]int, error) {
	var out []int
	v, shift := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base64Digits, s[i])
		if d < 0 || shift > 30 {
			return nil, errVLQ
		}
		v |= (d & 0x1f) << shift
		if d&0x20 != 0 {
			shift += 5
			continue
		}
		if v&1 != 0 {
			out = append(out, -(v >> 1))
		} else {
			out = append(out, v>>1)
		}
		v, shift = 0, 0
	}
	if shift != 0 {
		return nil, errVLQ
	}
	return out, nil
}

// Source returns the place in a source that generated line and col (both
// from 0) were made from: the last segment of the line at or before col.
func (m *Map) Source(line, col int) (Pos, bool) {
	if m == nil || line < 0 || line >= len(m.lines) {
		return Pos{}, false
	}
	segs := m.lines[line]
	i := sort.Search(len(segs), func(i int) bool { return segs[i].col > col }) - 1
	if i < 0 || segs[i].src < 0 {
		return Pos{}, false
	}
	s := segs[i]
	return Pos{File: m.sources[s.src], Line: s.line + 1, Col: s.srcCol + 1}, true
}

// Doc is a bundled view document and the source map of its one script.
type Doc struct {
	Map *Map
	// ScriptLine is the document line (from 0) the script's first line is
	// on; the script starts at column 0 of it.
	ScriptLine int
}

// Source returns the source place of a place in the document, line and
// col from 1, as browsers print them in stack traces.
func (d *Doc) Source(line, col int) (Pos, bool) {
	if d == nil {
		return Pos{}, false
	}
	return d.Map.Source(line-1-d.ScriptLine, col-1)
}

// placeRE matches URL:LINE:COL, as stack traces and error locations name a
// place in a script.
var placeRE = regexp.MustCompile(`(https?://[^\s()'"]+):(\d+):(\d+)`)

// Rewrite replaces every URL:LINE:COL in text whose URL doc knows with the
// source place it was made from; other text stays as it is.
func Rewrite(text string, doc func(url string) *Doc) string {
	return placeRE.ReplaceAllStringFunc(text, func(s string) string {
		m := placeRE.FindStringSubmatch(s)
		d := doc(m[1])
		if d == nil {
			return s
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		if p, ok := d.Source(line, col); ok {
			return p.String()
		}
		return s
	})
}
