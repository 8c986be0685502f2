package toolname

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"a", "get_weather", "admin.tools.list", "x-1", strings.Repeat("a", MaxLen)} {
		if why := Check(ok); why != "" {
			t.Errorf("Check(%q) = %q; want valid", ok, why)
		}
	}
	for in, why := range map[string]string{
		"":                            "empty",
		strings.Repeat("a", MaxLen+1): "129 characters long",
		"get weather":                 `character ' ' is not allowed`,
		"café":                        `character 'é' is not allowed`,
		"a/b":                         `character '/' is not allowed`,
	} {
		if got := Check(in); !strings.Contains(got, why) {
			t.Errorf("Check(%q) = %q; want %q", in, got, why)
		}
	}
}
