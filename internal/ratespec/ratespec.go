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
