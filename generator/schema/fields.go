package schema

import (
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jfield is one JSON-visible field of a struct, after encoding/json's rules
// for names, tags and embedded structs.
type jfield struct {
	name      string
	tagged    bool
	index     []int
	v         *types.Var
	tag       string // the whole struct tag
	omitEmpty bool
	omitZero  bool
	quoted    bool // ,string
}

// jsonFields mirrors encoding/json's typeFields: exported fields, json tag
// names, "-" skips, embedded structs without a tag name flattened with Go's
// dominance rules (shallower wins; at equal depth a tagged field wins;
// otherwise all of that name are dropped). The result is in field order.
func jsonFields(st *types.Struct) []jfield {
	type walk struct {
		st    *types.Struct
		key   string
		index []int
	}
	var fields []jfield
	var current []walk
	next := []walk{{st: st, key: types.TypeString(st, nil)}}
	var count, nextCount map[string]int
	visited := map[string]bool{}
	for len(next) > 0 {
		current, next = next, nil
		count, nextCount = nextCount, map[string]int{}
		for _, w := range current {
			if visited[w.key] {
				continue
			}
			visited[w.key] = true
			for i := 0; i < w.st.NumFields(); i++ {
				sf := w.st.Field(i)
				tag := w.st.Tag(i)
				ft := types.Unalias(sf.Type())
				if p, ok := ft.(*types.Pointer); ok {
					ft = types.Unalias(p.Elem())
				}
				if sf.Embedded() {
					if !sf.Exported() {
						if _, isStruct := ft.Underlying().(*types.Struct); !isStruct {
							continue
						}
					}
				} else if !sf.Exported() {
					continue
				}
				jt := reflect.StructTag(tag).Get("json")
				if jt == "-" {
					continue
				}
				name, opts, _ := strings.Cut(jt, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clone(w.index), i)
				sub, isStruct := ft.Underlying().(*types.Struct)
				if _, isParam := ft.(*types.TypeParam); isParam {
					isStruct = false
				}
				if name != "" || !sf.Embedded() || !isStruct {
					f := jfield{name: name, tagged: name != "", index: index, v: sf, tag: tag}
					if f.name == "" {
						f.name = sf.Name()
					}
					for o := range strings.SplitSeq(opts, ",") {
						switch o {
						case "omitempty":
							f.omitEmpty = true
						case "omitzero":
							f.omitZero = true
						case "string":
							f.quoted = quotable(sf.Type())
						}
					}
					fields = append(fields, f)
					if count[w.key] > 1 {
						// Two embeddings of the same struct at one depth
						// annihilate each other's fields.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				key := types.TypeString(ft, nil)
				nextCount[key]++
				if nextCount[key] == 1 {
					next = append(next, walk{st: sub, key: key, index: index})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b jfield) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		if len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue // ambiguous: encoding/json drops them all
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b jfield) int { return slices.Compare(a.index, b.index) })
	return out
}

// quotable reports whether the ,string option applies to t (encoding/json
// honours it for strings, numbers and booleans only).
func quotable(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0
}

// validTagName mirrors encoding/json's isValidTag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
