package connector

import (
	"os"
	"strings"
	"testing"
)

// FuzzClientHost: whatever the headers, the caller is the peer unless the
// peer is trusted, and is always an address.

func TestParseStateKeys(t *testing.T) {
	file := t.TempDir() + "/key"
	if err := os.WriteFile(file, []byte("  file-key-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := parseStateKeys("new-key-0123456789abcdef,@" + file)
	if err != nil || len(keys) != 2 || string(keys[0]) != "new-key-0123456789abcdef" || string(keys[1]) != "file-key-0123456789abcdef" {
		t.Fatalf("parseStateKeys = %q, %v", keys, err)
	}
	for v, want := range map[string]string{
		"short":                     "key 1 is 5 bytes; want at least 16",
		"new-key-0123456789abcdef,": "key 2 is 0 bytes",
		"@/nonexistent/key":         "--state-key: key 1: open /nonexistent/key",
	} {
		if _, err := parseStateKeys(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseStateKeys(%q) = %v; want %q", v, err, want)
		}
	}
}

// TestStateKeyRotation: requestState signed with an old key is accepted
// by a server that signs with a new one, and one signed with an unknown
// key is refused.
func TestStateKeyRotation(t *testing.T) {
	old := &Server{stateKey: []byte("old-key-0123456789abcdef")}
	st, err := old.signState(roundState{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rotated := &Server{stateKey: []byte("new-key-0123456789abcdef"), opts: options{oldStateKeys: [][]byte{old.stateKey}}}
	if _, err := rotated.openState("t", st); err != nil {
		t.Errorf("state signed with the old key refused after rotation: %v", err)
	}
	other := &Server{stateKey: []byte("new-key-0123456789abcdef")}
	if _, err := other.openState("t", st); err == nil {
		t.Error("state signed with a key the server does not hold was accepted")
	}
}
