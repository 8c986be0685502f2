package parse

import (
	"strings"
	"unicode"
)

// snakeCase turns a Go identifier into a tool name: FindOrders → find_orders,
// GetHTTPStatus → get_http_status, Top10Items → top10_items, userIDs → user_ids.
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				// A plural acronym ("IDs") keeps its s: userIDs → user_ids.
				if nextLower && rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2])) {
					nextLower = false
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exported returns name with its first letter upper-cased.
func exported(name string) string {
	rs := []rune(name)
	if len(rs) == 0 {
		return name
	}
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}
