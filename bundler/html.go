package bundler

import (
	"bytes"
	"html"
	"strings"
)

// Document wraps a view's script and style into one HTML5 document. The
// script runs at the end of <body>, after #root exists. js and css come from
// esbuild, which escapes "</script" and "</style" inside them; Document checks
// again so no bundle can end its element early.
func Document(name, title string, js, css []byte) string {
	if title == "" {
		title = name
	}
	var b strings.Builder
	b.Grow(len(js) + len(css) + 512)
	b.WriteString("<!doctype html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n")
	if len(css) > 0 {
		b.WriteString("<style>\n")
		b.Write(escapeClose(css, "</style"))
		b.WriteString("</style>\n")
	}
	b.WriteString("</head>\n<body>\n<div id=\"root\"></div>\n<script>\n")
	b.Write(escapeClose(js, "</script"))
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.String()
}

// scriptLine returns the line (from 0) of a Document on which its script
// starts.
func scriptLine(doc string) int {
	const open = "</head>\n<body>\n<div id=\"root\"></div>\n<script>\n"
	i := strings.Index(doc, open)
	if i < 0 {
		return 0
	}
	return strings.Count(doc[:i+len(open)], "\n")
}

// escapeClose replaces any case-insensitive occurrence of tag ("</script")
// with "<\/script", which means the same in JS strings, regexps and
// comments, and in CSS strings and comments.
func escapeClose(code []byte, tag string) []byte {
	lower := bytes.ToLower(code)
	if !bytes.Contains(lower, []byte(tag)) {
		return code
	}
	out := make([]byte, 0, len(code)+8)
	for {
		i := bytes.Index(lower, []byte(tag))
		if i < 0 {
			return append(out, code...)
		}
		out = append(out, code[:i+1]...)
		out = append(out, '\\')
		code, lower = code[i+1:], lower[i+1:]
	}
}
