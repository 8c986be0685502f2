package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFailureIsNotRemembered: a store whose first open fails (here a
// file stands where its directory should be; in production, another
// process creating the database at that moment) works once the cause is
// gone, without a restart.
func TestOpenFailureIsNotRemembered(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "data")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := Open(filepath.Join(blocker, "notes.db"))
	defer s.Close()
	if _, err := s.Add(Note{Title: "first", Priority: "normal"}); err == nil {
		t.Fatal("Add succeeded with a file where the database's directory should be")
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	n, err := s.Add(Note{Title: "second", Priority: "normal"})
	if err != nil {
		t.Fatalf("Add after the cause was removed: %v", err)
	}
	if got, err := s.Get(n.ID); err != nil || got.Title != "second" {
		t.Errorf("Get(%s) = %+v, %v", n.ID, got, err)
	}
}
