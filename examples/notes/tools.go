package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/examples/notes/store"
)

// notes is the store every tool works on: $NOTES_FILE, or notes.db in the
// user's config directory.
var notes = store.Open(store.DefaultPath())

// Note is a note as the tools return it.
type Note struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Body  string   `json:"body,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Priority is low, normal or high.
	Priority Priority `json:"priority"`
	Done     bool     `json:"done"`
	// Due is when the note's task is due, if it has a deadline.
	Due *time.Time `json:"due,omitempty"`
	// EstimateMinutes is how long the task should take, if estimated.
	EstimateMinutes int       `json:"estimateMinutes,omitempty"`
	Created         time.Time `json:"created"`
}

// Priority says how urgent a note is.
type Priority string

const (
	// Low can wait.
	Low Priority = "low"
	// Normal is the default.
	Normal Priority = "normal"
	// High comes first.
	High Priority = "high"
)

// Schedule gives a note a deadline.
type Schedule struct {
	// Due is the deadline, in RFC 3339 (2026-03-01T17:00:00Z).
	Due time.Time `json:"due"`
	// EstimateMinutes is how long the task should take.
	EstimateMinutes int `json:"estimateMinutes,omitempty" mcpgen:"min=1,max=1440"`
}

// AddNoteInput is a new note.
type AddNoteInput struct {
	// Title is a short summary, shown in lists.
	Title string `json:"title" mcpgen:"minLength=1,maxLength=200"`
	// Body is the note's text (Markdown is fine).
	Body string `json:"body,omitempty" mcpgen:"maxLength=20000"`
	// Tags group notes, e.g. ["work", "groceries"].
	Tags     []string `json:"tags,omitempty"`
	Priority Priority `json:"priority,omitempty" mcpgen:"default=normal"`
	// Schedule makes the note a task with a deadline.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Stores a new note or task and returns it with its ID.
//
//mcpgen:tool additive closedworld title="Add a note"
func AddNote(ctx context.Context, in AddNoteInput) (Note, error) {
	n := store.Note{
		Title:    strings.TrimSpace(in.Title),
		Body:     in.Body,
		Tags:     in.Tags,
		Priority: store.Priority(in.Priority),
	}
	if n.Title == "" {
		return Note{}, errors.New("the title is blank: give the note a short title")
	}
	if in.Schedule != nil {
		n.Due = in.Schedule.Due.UTC()
		n.EstimateMinutes = in.Schedule.EstimateMinutes
	}
	added, err := notes.Add(n)
	if err != nil {
		return Note{}, err
	}
	return toNote(added), nil
}

// Status selects notes by whether they are done.
type Status string

const (
	// Open notes are not done yet.
	Open Status = "open"
	// Done notes are finished.
	Done Status = "done"
	// Any selects both.
	Any Status = "any"
)

// SortOrder orders a list of notes.
type SortOrder string

const (
	// Newest lists the most recently created first.
	Newest SortOrder = "newest"
	// Lists the nearest deadline first; notes without one come last.
	DueFirst SortOrder = "due"
	// Lists high priority first.
	Urgent SortOrder = "priority"
)

// ListNotesInput selects and orders notes.
type ListNotesInput struct {
	// Query matches words in the title or body, case-insensitively.
	Query string `json:"query,omitempty"`
	// Tag keeps only notes with this tag.
	Tag    string `json:"tag,omitempty"`
	Status Status `json:"status,omitempty" mcpgen:"default=open"`
	// Sort orders the list.
	Sort SortOrder `json:"sort,omitempty" mcpgen:"default=newest"`
	// DueWithinHours keeps only tasks due within this many hours from now
	// (overdue ones included).
	DueWithinHours int `json:"dueWithinHours,omitempty" mcpgen:"min=1,max=8760"`
	// Limit is the most notes to return.
	Limit int `json:"limit,omitempty" mcpgen:"min=1,max=100,default=20"`
}

// ListNotesOutput is one page of notes.
type ListNotesOutput struct {
	Notes []Note `json:"notes"`
	// Total is how many notes matched; more than len(notes) when the list
	// was cut at limit.
	Total int `json:"total"`
}

// Finds notes by words, tag, status and deadline. Use it before
// update_note or delete_note to find a note's ID.
//
//mcpgen:tool readonly closedworld title="List notes"
func ListNotes(ctx context.Context, in ListNotesInput) (ListNotesOutput, error) {
	q := store.Query{Text: in.Query, Tag: in.Tag}
	switch in.Status {
	case Open, "":
		f := false
		q.Done = &f
	case Done:
		t := true
		q.Done = &t
	}
	switch in.Sort {
	case DueFirst:
		q.SortBy = "due"
	case Urgent:
		q.SortBy = "priority"
	default:
		q.SortBy = "created"
	}
	if in.DueWithinHours > 0 {
		q.DueUntil = time.Now().Add(time.Duration(in.DueWithinHours) * time.Hour)
	}
	found, err := notes.Find(q)
	if err != nil {
		return ListNotesOutput{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	out := ListNotesOutput{Total: len(found), Notes: []Note{}}
	for i, n := range found {
		if i == limit {
			break
		}
		out.Notes = append(out.Notes, toNote(n))
	}
	return out, nil
}

// NoteID names one note.
type NoteID struct {
	// ID is the note's ID as list_notes returns it, e.g. "n12".
	ID string `json:"id" mcpgen:"pattern=^n[0-9]+$"`
}

// Returns one note with its whole body.
//
//mcpgen:tool readonly closedworld title="Get a note"
func GetNote(ctx context.Context, in NoteID) (Note, error) {
	n, err := notes.Get(in.ID)
	if err != nil {
		return Note{}, notFound(err)
	}
	return toNote(n), nil
}

// UpdateNoteInput changes some fields of a note; fields left out stay as
// they are.
type UpdateNoteInput struct {
	// ID is the note to change.
	ID string `json:"id" mcpgen:"pattern=^n[0-9]+$"`
	// Title replaces the title.
	Title *string `json:"title,omitempty"`
	// Body replaces the body.
	Body *string `json:"body,omitempty"`
	// Done marks the note done (true) or open again (false).
	Done     *bool     `json:"done,omitempty"`
	Priority *Priority `json:"priority,omitempty"`
	// Tags replaces all tags; [] removes them.
	Tags []string `json:"tags,omitempty"`
	// Schedule sets a new deadline.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Changes a note: marks it done, renames it, reschedules it.
//
//mcpgen:tool destructive idempotent closedworld title="Update a note"
func UpdateNote(ctx context.Context, in UpdateNoteInput) (Note, error) {
	n, err := notes.Update(in.ID, func(n *store.Note) {
		if in.Title != nil {
			n.Title = *in.Title
		}
		if in.Body != nil {
			n.Body = *in.Body
		}
		if in.Done != nil {
			n.Done = *in.Done
		}
		if in.Priority != nil {
			n.Priority = store.Priority(*in.Priority)
		}
		if in.Tags != nil {
			n.Tags = in.Tags
		}
		if in.Schedule != nil {
			n.Due = in.Schedule.Due.UTC()
			n.EstimateMinutes = in.Schedule.EstimateMinutes
		}
	})
	if err != nil {
		return Note{}, notFound(err)
	}
	return toNote(n), nil
}

// Deletes a note for good. It cannot be undone: prefer
// update_note with done=true to close a task.
//
//mcpgen:tool destructive idempotent closedworld title="Delete a note"
func DeleteNote(ctx context.Context, in NoteID) (string, error) {
	if err := notes.Delete(in.ID); err != nil {
		return "", notFound(err)
	}
	return fmt.Sprintf("deleted note %s", in.ID), nil
}

func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%v: call list_notes to find the note's ID", err)
	}
	return err
}

func toNote(n store.Note) Note {
	out := Note{
		ID: n.ID, Title: n.Title, Body: n.Body, Tags: n.Tags,
		Priority: Priority(n.Priority), Done: n.Done, Created: n.Created,
		EstimateMinutes: n.EstimateMinutes,
	}
	if !n.Due.IsZero() {
		d := n.Due
		out.Due = &d
	}
	return out
}
