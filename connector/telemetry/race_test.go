//go:build race

package telemetry

// raceEnabled says the race detector is on: sync.Pool then drops some
// of what it is given, so allocation counts mean nothing.
const raceEnabled = true
