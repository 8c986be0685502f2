package diag

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"readonly", "readonly", 0},
		{"readonyl", "readonly", 1}, {"raedonly", "readonly", 1}, {"redonly", "readonly", 1},
		{"kitten", "sitting", 3}, {"ça", "ca", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	opts := []string{"readonly", "destructive", "idempotent", "openworld", "closedworld", "name", "title", "ui"}
	for _, tc := range []struct{ got, want string }{
		{"readonyl", "readonly"},
		{"ReadOnly", "readonly"},
		{"destrutive", "destructive"},
		{"idempotnet", "idempotent"},
		{"read", "readonly"}, // a prefix
		{"nam", "name"},
		{"u", "ui"},
		{"q", ""},
		{"xyz", ""},
		{"timeout", ""},
	} {
		if got := Closest(tc.got, opts); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.got, got, tc.want)
		}
	}
}
