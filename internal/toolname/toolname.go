// Package toolname is the one copy of the rule for MCP tool, prompt and
// resource names, shared by the generator (name=, and names derived from
// functions) and the runtime (App.Tools given by hand).
package toolname

import "fmt"

// MaxLen is the longest name MCP hosts accept.
const MaxLen = 128

// Check reports why s is not a valid name ("" when it is): 1 to 128
// characters of A-Z a-z 0-9 _ - and '.'.
func Check(s string) string {
	if s == "" {
		return "empty"
	}
	if len(s) > MaxLen {
		return fmt.Sprintf("%d characters long, at most %d are allowed", len(s), MaxLen)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Sprintf("character %q is not allowed", r)
		}
	}
	return ""
}
