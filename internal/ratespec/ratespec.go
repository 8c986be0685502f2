// Package ratespec is the one copy of the N/DURATION grammar of rate
// limits, shared by the generator (a tool's ratelimit=10/1m) and the
// runtime (--rate-limit 120/1m).
package ratespec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Parse parses N/DURATION: a positive number of calls, a slash and a
// positive Go duration ("120/1m", "5/30s", "1000/1h"); a bare unit means
// one of it ("10/s", "60/m", "500/h"). Its error says what is wrong in a
// phrase ("no slash between ..."), for the caller to put in context.
func Parse(s string) (n int, per time.Duration, err error) {
	count, period, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, errors.New("no slash between the number of calls and the period")
	}
	n, err = strconv.Atoi(count)
	if err != nil || n <= 0 {
		return 0, 0, fmt.Errorf("%q is not a positive number of calls", count)
	}
	switch period {
	case "s", "m", "h":
		period = "1" + period
	}
	per, err = time.ParseDuration(period)
	if err != nil || per <= 0 {
		return 0, 0, fmt.Errorf("%q is not a positive duration", period)
	}
	return n, per, nil
}

// Rate is a number of calls per period, such as 120 per minute
// (--rate-limit 120/1m, or a tool's ratelimit=10/1m). Calls may come in a
// burst of up to N, then one per Per/N.
type Rate struct {
	N   int
	Per time.Duration
}

// IsZero reports whether r sets no limit.
func (r Rate) IsZero() bool { return r.N == 0 }

// String is r as N/DURATION, "" for no limit.
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.N, Short(r.Per))
}

// ParseRate is Parse into a Rate, surrounding space ignored; its error
// quotes s.
func ParseRate(s string) (Rate, error) {
	n, per, err := Parse(strings.TrimSpace(s))
	if err != nil {
		return Rate{}, fmt.Errorf("want N/DURATION such as 120/1m in %q: %v", s, err)
	}
	return Rate{N: n, Per: per}, nil
}

// Short writes d without trailing zero units: 1m rather than 1m0s.
func Short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
