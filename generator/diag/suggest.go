package diag

import "strings"

// Closest returns the candidate a user most likely meant by got — the
// nearest by edit distance, ignoring case, when it is close enough to be a
// misspelling, or a candidate got is a prefix of ("read" for "readonly") —
// or "" when none is. Diagnostics use it for "did you mean ...?".
func Closest(got string, candidates []string) string {
	lg := strings.ToLower(got)
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(lg, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(got)/4)
	if len(got) <= 3 {
		limit = 1
	}
	if best != "" && bestD <= limit && bestD < len(best) {
		return best
	}
	if len(got) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), lg) {
				return c
			}
		}
	}
	return ""
}

// Distance is the optimal string alignment (Damerau–Levenshtein) distance
// between a and b in runes: insertions, deletions, substitutions and swaps
// of neighbours ("raedonly") each count as one edit.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
