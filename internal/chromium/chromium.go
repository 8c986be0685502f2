// Package chromium turns the machine's Chromium into a headless browser
// launch: which binary runs ($MCPGEN_CHROME, else the first Chromium or
// Chrome on PATH) and the flags every launch passes, so `mcpgen test`, the
// view tests and the inspector's tests start the same browser the same way.
package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNotFound is returned by Find when no Chromium is installed.
var ErrNotFound = errors.New(msgNotFound)

// names are the binaries Find looks for on PATH, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium (or Chrome) binary: $MCPGEN_CHROME
// when set, else the first of chromium, chromium-browser, google-chrome and
// google-chrome-stable on PATH.
func Find() (string, error) {
	if p := os.Getenv("MCPGEN_CHROME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("MCPGEN_CHROME=%s: %w", p, err)
		}
		return p, nil
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Flags returns the command-line flags of every headless launch. The
// sandbox is off because containers and CI run the browser as root; the
// GPU is off because headless machines have none; background traffic
// (component updates, sync, QUIC probes) is off because the machines the
// tests run on have a closed network and a page's own requests must be
// the only ones.
func Flags() []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
	}
}

// Split returns a flag's name (without the leading dashes) and its value
// ("" for a switch such as --no-sandbox).
func Split(flag string) (name, value string) {
	name, value, _ = strings.Cut(strings.TrimLeft(flag, "-"), "=")
	return name, value
}
