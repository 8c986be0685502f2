package ratespec

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]struct {
		n   int
		per time.Duration
	}{
		"120/1m": {120, time.Minute}, "5/30s": {5, 30 * time.Second}, "10/s": {10, time.Second},
		"60/m": {60, time.Minute}, "500/h": {500, time.Hour}, "1/1h30m": {1, 90 * time.Minute},
	} {
		n, per, err := Parse(in)
		if err != nil || n != want.n || per != want.per {
			t.Errorf("Parse(%q) = %d, %s, %v; want %d, %s", in, n, per, err, want.n, want.per)
		}
	}
	for in, why := range map[string]string{
		"":       "no slash",
		"10":     "no slash",
		"0/1m":   `"0" is not a positive number of calls`,
		"-1/1m":  `"-1" is not a positive number`,
		"x/1m":   `"x" is not a positive number`,
		"10/":    `"" is not a positive duration`,
		"10/0s":  `"0s" is not a positive duration`,
		"10/-1m": `"-1m" is not a positive duration`,
		"10/day": `"day" is not a positive duration`,
		"10/1m/": `"1m/" is not a positive duration`,
	} {
		if _, _, err := Parse(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", in, err, why)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"120/1m", "10/s", "0/1m", "1/-1s", "/", "9999999999999999999/1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, per, err := Parse(s)
		if err == nil && (n <= 0 || per <= 0) {
			t.Errorf("Parse(%q) = %d, %s without an error", s, n, per)
		}
	})
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Rate{"120/1m": {N: 120, Per: time.Minute}, "5/30s": {N: 5, Per: 30 * time.Second}, "10/s": {N: 10, Per: time.Second}, "500/h": {N: 500, Per: time.Hour}} {
		got, err := ParseRate(in)
		if err != nil || got != want || got.String() != strings.Replace(strings.Replace(strings.Replace(in, "/s", "/1s", 1), "/h", "/1h", 1), "/m", "/1m", 1) {
			t.Errorf("ParseRate(%q) = %v (%s), %v", in, got, got, err)
		}
	}
	for _, bad := range []string{"", "10", "0/1m", "-1/1m", "x/1m", "10/", "10/0s", "10/-1m", "10/fortnight"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}
