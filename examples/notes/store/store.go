// Package store keeps notes in one JSON file. It knows nothing about MCP:
// the connector's tools (package main) are thin wrappers around it, which is
// how an mcpgen connector usually wraps an existing API or library.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Priority orders notes.
type Priority string

// The priorities, lowest first.
const (
	Low    Priority = "low"
	Normal Priority = "normal"
	High   Priority = "high"
)

func (p Priority) rank() int {
	switch p {
	case High:
		return 2
	case Normal, "":
		return 1
	}
	return 0
}

// Note is one stored note.
type Note struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Body     string    `json:"body,omitempty"`
	Tags     []string  `json:"tags,omitempty"`
	Priority Priority  `json:"priority"`
	Done     bool      `json:"done"`
	Due      time.Time `json:"due,omitzero"`
	// EstimateMinutes is how long the task should take; 0: not estimated.
	EstimateMinutes int       `json:"estimateMinutes,omitempty"`
	Created         time.Time `json:"created"`
	Updated         time.Time `json:"updated"`
}

// ErrNotFound reports an unknown note ID.
var ErrNotFound = errors.New("no such note")

// Store is a file of notes. Every call reads and rewrites the file, so
// several processes (a dev server and a built binary) can share it.
type Store struct {
	mu   sync.Mutex
	path string
	now  func() time.Time
}

// Open returns the store kept in path; the file is created on first write.
func Open(path string) *Store { return &Store{path: path, now: time.Now} }

// DefaultPath is $NOTES_FILE, or notes.json in the user's config directory.
func DefaultPath() string {
	if p := os.Getenv("NOTES_FILE"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mcpgen-notes", "notes.json")
}

type file struct {
	NextID int     `json:"nextId"`
	Notes  []*Note `json:"notes"`
}

func (s *Store) load() (*file, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return &file{NextID: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s is not a notes file: %v", s.path, err)
	}
	return &f, nil
}

func (s *Store) save(f *file) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

// Add stores a new note and returns it with its ID.
func (s *Store) Add(n Note) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return Note{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	n.ID = fmt.Sprintf("n%d", f.NextID)
	f.NextID++
	if n.Priority == "" {
		n.Priority = Normal
	}
	n.Created, n.Updated = now, now
	f.Notes = append(f.Notes, &n)
	return n, s.save(f)
}

// Get returns one note.
func (s *Store) Get(id string) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return Note{}, err
	}
	for _, n := range f.Notes {
		if n.ID == id {
			return *n, nil
		}
	}
	return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
}

// Update applies change to one note and stores it.
func (s *Store) Update(id string, change func(*Note)) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return Note{}, err
	}
	for _, n := range f.Notes {
		if n.ID == id {
			change(n)
			n.Updated = s.now().UTC().Truncate(time.Second)
			return *n, s.save(f)
		}
	}
	return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
}

// Delete removes one note.
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	for i, n := range f.Notes {
		if n.ID == id {
			f.Notes = append(f.Notes[:i], f.Notes[i+1:]...)
			return s.save(f)
		}
	}
	return fmt.Errorf("%w %q", ErrNotFound, id)
}

// Query selects notes.
type Query struct {
	Text     string // matched case-insensitively against title and body
	Tag      string
	Done     *bool
	DueUntil time.Time // zero: any
	SortBy   string    // "created", "due" or "priority"
}

// Find returns the notes matching q, sorted, and how many matched.
func (s *Store) Find(q Query) ([]Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	text := strings.ToLower(q.Text)
	var out []Note
	for _, n := range f.Notes {
		switch {
		case text != "" && !strings.Contains(strings.ToLower(n.Title+"\n"+n.Body), text):
			continue
		case q.Tag != "" && !hasTag(n.Tags, q.Tag):
			continue
		case q.Done != nil && n.Done != *q.Done:
			continue
		case !q.DueUntil.IsZero() && (n.Due.IsZero() || n.Due.After(q.DueUntil)):
			continue
		}
		out = append(out, *n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch q.SortBy {
		case "due":
			if a.Due.IsZero() != b.Due.IsZero() {
				return !a.Due.IsZero()
			}
			return a.Due.Before(b.Due)
		case "priority":
			return a.Priority.rank() > b.Priority.rank()
		}
		return a.Created.After(b.Created)
	})
	return out, nil
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}
