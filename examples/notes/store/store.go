// Package store keeps notes in an SQLite database (modernc.org/sqlite, in
// pure Go, so the connector stays one static binary). Several processes may
// share one database file: SQLite's locking serializes their writes, so
// none is lost. It knows nothing about MCP: the connector's tools (package
// main) are thin wrappers around it, which is how an mcpgen connector
// usually wraps an existing API or library.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // also the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
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

// Store is a database of notes. The database is opened (and created) on
// first use, so a binary run for --help or --version leaves no file behind.
type Store struct {
	path string
	now  func() time.Time

	mu sync.Mutex // guards db
	db *sql.DB
}

// Open returns the store kept in the SQLite database at path.
func Open(path string) *Store { return &Store{path: path, now: time.Now} }

// DefaultPath is $NOTES_FILE, or notes.db in the user's config directory.
func DefaultPath() string {
	if p := os.Getenv("NOTES_FILE"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mcpgen-notes", "notes.db")
}

// schema creates the notes table. AUTOINCREMENT keeps IDs of deleted notes
// from being reused, so an ID never names two different notes.
const schema = `CREATE TABLE IF NOT EXISTS notes (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	title    TEXT NOT NULL,
	body     TEXT NOT NULL DEFAULT '',
	tags     TEXT NOT NULL DEFAULT '[]',
	priority TEXT NOT NULL,
	done     INTEGER NOT NULL DEFAULT 0,
	due      TEXT NOT NULL DEFAULT '',
	estimate INTEGER NOT NULL DEFAULT 0,
	created  TEXT NOT NULL,
	updated  TEXT NOT NULL
)`

// open opens the database on first use. WAL lets readers run beside a
// writer; busy_timeout makes a process wait for another's write instead of
// failing; _txlock=immediate takes the write lock when a transaction
// begins, so two read-modify-write transactions never deadlock.
//
// Only success is remembered: a process that fails to open the database
// (another process is creating it or switching it to WAL at that moment,
// which SQLite reports as SQLITE_BUSY without waiting for busy_timeout;
// or a directory that cannot be created yet) tries again on its next call
// instead of failing every call until it restarts.
func (s *Store) open() (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return nil, fmt.Errorf("notes database %s: %v", s.path, err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("notes database %s: %v", s.path, err)
	}
	deadline := time.Now().Add(openWait)
	for {
		_, err = db.Exec(schema)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("notes database %s: %v", s.path, err)
	}
	s.db = db
	return db, nil
}

// openWait bounds how long open retries a database another process holds
// while creating it or switching its journal mode.
const openWait = 10 * time.Second

// isBusy reports whether err is SQLite's SQLITE_BUSY (or one of its
// extended codes).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Close closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

const columns = "seq, title, body, tags, priority, done, due, estimate, created, updated"

type scanner interface{ Scan(...any) error }

func scanNote(r scanner) (Note, error) {
	var n Note
	var seq int64
	var tags, due, created, updated string
	if err := r.Scan(&seq, &n.Title, &n.Body, &tags, &n.Priority, &n.Done, &due, &n.EstimateMinutes, &created, &updated); err != nil {
		return Note{}, err
	}
	n.ID = fmt.Sprintf("n%d", seq)
	if err := json.Unmarshal([]byte(tags), &n.Tags); err != nil {
		return Note{}, fmt.Errorf("note %s: tags: %v", n.ID, err)
	}
	for _, t := range []struct {
		s string
		p *time.Time
	}{{due, &n.Due}, {created, &n.Created}, {updated, &n.Updated}} {
		if t.s == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.s)
		if err != nil {
			return Note{}, fmt.Errorf("note %s: %v", n.ID, err)
		}
		*t.p = v
	}
	return n, nil
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func tagsText(tags []string) string {
	if tags == nil {
		tags = []string{}
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// seqOf parses a note ID ("n12").
func seqOf(id string) (int64, bool) {
	var seq int64
	if _, err := fmt.Sscanf(id, "n%d", &seq); err != nil || fmt.Sprintf("n%d", seq) != id {
		return 0, false
	}
	return seq, true
}

// Add stores a new note and returns it with its ID. Once Add returns
// without error, the note is committed.
func (s *Store) Add(n Note) (Note, error) {
	db, err := s.open()
	if err != nil {
		return Note{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	if n.Priority == "" {
		n.Priority = Normal
	}
	n.Created, n.Updated = now, now
	res, err := db.Exec(`INSERT INTO notes (title, body, tags, priority, done, due, estimate, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.Title, n.Body, tagsText(n.Tags), string(n.Priority), n.Done, timeText(n.Due), n.EstimateMinutes, timeText(now), timeText(now))
	if err != nil {
		return Note{}, err
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return Note{}, err
	}
	n.ID = fmt.Sprintf("n%d", seq)
	return n, nil
}

// Get returns one note.
func (s *Store) Get(id string) (Note, error) {
	db, err := s.open()
	if err != nil {
		return Note{}, err
	}
	seq, ok := seqOf(id)
	if !ok {
		return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	n, err := scanNote(db.QueryRow("SELECT "+columns+" FROM notes WHERE seq = ?", seq))
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return n, err
}

// Update applies change to one note and stores it, in one transaction:
// another process's change to the same note is never overwritten unseen.
func (s *Store) Update(id string, change func(*Note)) (Note, error) {
	db, err := s.open()
	if err != nil {
		return Note{}, err
	}
	seq, ok := seqOf(id)
	if !ok {
		return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return Note{}, err
	}
	defer tx.Rollback()
	n, err := scanNote(tx.QueryRow("SELECT "+columns+" FROM notes WHERE seq = ?", seq))
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	if err != nil {
		return Note{}, err
	}
	change(&n)
	n.Updated = s.now().UTC().Truncate(time.Second)
	if n.Priority == "" {
		n.Priority = Normal
	}
	_, err = tx.Exec(`UPDATE notes SET title = ?, body = ?, tags = ?, priority = ?, done = ?, due = ?, estimate = ?, updated = ?
		WHERE seq = ?`,
		n.Title, n.Body, tagsText(n.Tags), string(n.Priority), n.Done, timeText(n.Due), n.EstimateMinutes, timeText(n.Updated), seq)
	if err != nil {
		return Note{}, err
	}
	return n, tx.Commit()
}

// Delete removes one note.
func (s *Store) Delete(id string) error {
	db, err := s.open()
	if err != nil {
		return err
	}
	seq, ok := seqOf(id)
	if !ok {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	res, err := db.Exec("DELETE FROM notes WHERE seq = ?", seq)
	if err != nil {
		return err
	}
	if k, err := res.RowsAffected(); err != nil {
		return err
	} else if k == 0 {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	return nil
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
	db, err := s.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.Query("SELECT " + columns + " FROM notes ORDER BY seq")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []Note
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		all = append(all, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	text := strings.ToLower(q.Text)
	var out []Note
	for _, n := range all {
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
		out = append(out, n)
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
