package schema

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// fieldSrc is what the syntax says about one struct field.
type fieldSrc struct {
	doc    string
	docPos token.Pos // where doc's comment starts
	tagPos token.Pos // start of the tag literal; NoPos without a tag
	tagLit string    // the tag literal as written, quotes included
}

// index holds what go/types does not keep: doc comments and tag positions,
// keyed by the position of the declaring identifier.
type index struct {
	fields map[token.Pos]fieldSrc
	types  map[token.Pos]string // type name → doc
	consts map[token.Pos]string // constant name → doc
	// docs maps a type or constant name to where its doc comment starts.
	docs map[token.Pos]token.Pos
}

func newIndex(pkgs []*packages.Package) *index {
	ix := &index{
		fields: map[token.Pos]fieldSrc{},
		types:  map[token.Pos]string{},
		consts: map[token.Pos]string{},
		docs:   map[token.Pos]token.Pos{},
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, f := range p.Syntax {
			ix.file(f)
		}
	})
	return ix
}

func (ix *index) file(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			lone := len(n.Specs) == 1 && !n.Lparen.IsValid()
			for _, s := range n.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					cg := s.Doc
					if cg == nil && lone {
						cg = n.Doc
					}
					if cg == nil {
						cg = s.Comment
					}
					if d := docText(cg); d != "" {
						ix.types[s.Name.Pos()] = d
						ix.docs[s.Name.Pos()] = cg.Pos()
					}
				case *ast.ValueSpec:
					if n.Tok != token.CONST {
						continue
					}
					cg := s.Doc
					if cg == nil {
						cg = s.Comment
					}
					if cg == nil && lone {
						cg = n.Doc
					}
					if d := docText(cg); d != "" {
						for _, name := range s.Names {
							ix.consts[name.Pos()] = d
							ix.docs[name.Pos()] = cg.Pos()
						}
					}
				}
			}
		case *ast.StructType:
			if n.Fields == nil {
				return true
			}
			for _, fld := range n.Fields.List {
				cg := fld.Doc
				if cg == nil {
					cg = fld.Comment
				}
				src := fieldSrc{doc: docText(cg)}
				if src.doc != "" {
					src.docPos = cg.Pos()
				}
				if fld.Tag != nil {
					src.tagPos = fld.Tag.Pos()
					src.tagLit = fld.Tag.Value
				}
				if len(fld.Names) == 0 {
					if id := embeddedIdent(fld.Type); id != nil {
						ix.fields[id.Pos()] = src
					}
				}
				for _, name := range fld.Names {
					ix.fields[name.Pos()] = src
				}
			}
		}
		return true
	})
}

// embeddedIdent is the identifier go/types positions an embedded field at.
func embeddedIdent(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.StarExpr:
		return embeddedIdent(e.X)
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.IndexExpr:
		return embeddedIdent(e.X)
	case *ast.IndexListExpr:
		return embeddedIdent(e.X)
	case *ast.ParenExpr:
		return embeddedIdent(e.X)
	}
	return nil
}

// docText renders a comment group as a description: directives dropped,
// lines of a paragraph joined with spaces, paragraphs separated by a blank line.
func docText(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	var paras []string
	for _, p := range strings.Split(strings.TrimSpace(cg.Text()), "\n\n") {
		var words []string
		for _, line := range strings.Split(p, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				words = append(words, line)
			}
		}
		if len(words) > 0 {
			paras = append(paras, strings.Join(words, " "))
		}
	}
	return strings.Join(paras, "\n\n")
}

// enumConst is one constant of an enum type.
type enumConst struct {
	name string
	val  constant.Value
	doc  string
}

// enumConsts lists the constants its package declares for a named string or
// integer type, in source order.
func (b *Builder) enumConsts(tn *types.TypeName) []enumConst {
	if cs, ok := b.enums[tn]; ok {
		return cs
	}
	var found []*types.Const
	if pkg := tn.Pkg(); pkg != nil {
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			c, ok := scope.Lookup(name).(*types.Const)
			if ok && types.Identical(c.Type(), tn.Type()) {
				found = append(found, c)
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		pi, pj := b.fset.Position(found[i].Pos()), b.fset.Position(found[j].Pos())
		if pi.Filename != pj.Filename {
			return pi.Filename < pj.Filename
		}
		if pi.Offset != pj.Offset {
			return pi.Offset < pj.Offset
		}
		return found[i].Name() < found[j].Name()
	})
	var cs []enumConst
	for _, c := range found {
		cs = append(cs, enumConst{name: c.Name(), val: c.Val(), doc: b.ix.consts[c.Pos()]})
	}
	b.enums[tn] = cs
	return cs
}
