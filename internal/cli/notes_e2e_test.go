package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestExampleNotes builds examples/notes with the real mcpgen and questions
// the binary over Streamable HTTP and over stdio.
func TestExampleNotes(t *testing.T) {
	t.Parallel()
	mcpgen := mcpgenBinary(t)
	dir := copyExample(t, "notes")
	bin := filepath.Join(t.TempDir(), "notes")
	if out, errOut, code := run(t, dir, nil, mcpgen, "build", ".", "-o", bin); code != 0 {
		t.Fatalf("mcpgen build: exit %d\n%s%s", code, out, errOut)
	}

	t.Run("http", func(t *testing.T) {
		env := []string{"NOTES_FILE=" + filepath.Join(t.TempDir(), "notes.db")}
		exerciseNotes(t, connectHTTP(t, serveHTTP(t, bin, env)))
	})
	t.Run("stdio", func(t *testing.T) {
		env := []string{"NOTES_FILE=" + filepath.Join(t.TempDir(), "notes.db")}
		exerciseNotes(t, connectStdio(t, bin, env))
	})
	t.Run("processes", func(t *testing.T) { notesProcesses(t, bin) })
	// The example is a module of its own, which the repository's go test
	// ./... does not enter: run its store's tests here.
	t.Run("store", func(t *testing.T) {
		if out, errOut, code := run(t, dir, nil, "go", "test", "-count=1", "./store"); code != 0 {
			t.Errorf("go test ./store in examples/notes: exit %d\n%s%s", code, out, errOut)
		}
	})
}

// notesProcesses runs several notes processes on one database, each
// adding and then updating notes from several clients at once, and checks
// that every acknowledged write is there afterwards.
func notesProcesses(t *testing.T, bin string) {
	const procs, writers, perWriter = 4, 4, 5
	env := []string{"NOTES_FILE=" + filepath.Join(t.TempDir(), "notes.db")}
	sessions := make([]*mcp.ClientSession, procs)
	for i := range sessions {
		sessions[i] = connectStdio(t, bin, env)
	}
	type ack struct{ id, title string }
	var (
		mu    sync.Mutex
		acked []ack
		wg    sync.WaitGroup
	)
	ctx := context.Background()
	for p, cs := range sessions {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range perWriter {
					title := fmt.Sprintf("p%d w%d k%d", p, w, k)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"title": title, "tags": []string{fmt.Sprintf("p%d", p)}}})
					if err != nil || res.IsError {
						t.Errorf("add_note %q: %v %s", title, err, textOrNil(res))
						continue
					}
					var n struct{ ID, Title string }
					json.Unmarshal([]byte(text(res)), &n)
					if n.ID == "" || n.Title != title {
						t.Errorf("add_note %q answered %s", title, text(res))
						continue
					}
					// Rename it from another process at once.
					other := sessions[(p+1)%procs]
					renamed := title + " (renamed)"
					res, err = other.CallTool(ctx, &mcp.CallToolParams{Name: "update_note", Arguments: map[string]any{"id": n.ID, "title": renamed}})
					if err != nil || res.IsError {
						t.Errorf("update_note %s: %v %s", n.ID, err, textOrNil(res))
						continue
					}
					mu.Lock()
					acked = append(acked, ack{n.ID, renamed})
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(acked) != procs*writers*perWriter {
		t.Fatalf("%d of %d writes acknowledged", len(acked), procs*writers*perWriter)
	}
	// A fresh process sees every acknowledged note, with its update.
	check := connectStdio(t, bin, env)
	seen := map[string]bool{}
	for _, a := range acked {
		if seen[a.id] {
			t.Errorf("ID %s given to two notes", a.id)
		}
		seen[a.id] = true
		res := call(t, check, "get_note", map[string]any{"id": a.id})
		var n struct{ Title string }
		json.Unmarshal([]byte(text(res)), &n)
		if res.IsError || n.Title != a.title {
			t.Errorf("get_note %s: %s, want title %q", a.id, text(res), a.title)
		}
	}
	res := call(t, check, "list_notes", map[string]any{"status": "any", "limit": 100})
	var list struct{ Total int }
	json.Unmarshal([]byte(text(res)), &list)
	if list.Total != len(acked) {
		t.Errorf("list_notes total %d, want %d", list.Total, len(acked))
	}
}

func textOrNil(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return text(res)
}

func exerciseNotes(t *testing.T, cs *mcp.ClientSession) {
	ts := tools(t, cs)
	var names []string
	for n := range ts {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"add_note", "delete_note", "get_note", "list_notes", "update_note"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	add := ts["add_note"]
	if !strings.HasPrefix(add.Description, "Stores a new note or task") || strings.Contains(add.Description, "mcpgen:") {
		t.Errorf("add_note description = %q", add.Description)
	}
	if add.Title != "Add a note" {
		t.Errorf("add_note title = %q", add.Title)
	}
	in := newSchema(t, add.InputSchema)
	if got := in.strings("required"); !slices.Equal(got, []string{"title"}) {
		t.Errorf("add_note required = %v, want [title]", got)
	}
	if got := in.prop(t, "priority").strings("enum"); !slices.Equal(got, []string{"high", "low", "normal"}) {
		t.Errorf("priority enum = %v", got)
	}
	if got := in.prop(t, "title").str("description"); !strings.Contains(got, "short summary") {
		t.Errorf("title description = %q", got)
	}
	if v, ok := in.prop(t, "title").num("minLength"); !ok || v != 1 {
		t.Errorf("title minLength = %v, %v", v, ok)
	}
	est := in.prop(t, "schedule").prop(t, "estimateMinutes")
	if lo, _ := est.num("minimum"); lo != 1 {
		t.Errorf("schedule.estimateMinutes minimum = %v", lo)
	}
	if hi, _ := est.num("maximum"); hi != 1440 {
		t.Errorf("schedule.estimateMinutes maximum = %v", hi)
	}
	if got := in.prop(t, "schedule").strings("required"); !slices.Equal(got, []string{"due"}) {
		t.Errorf("schedule required = %v, want [due]", got)
	}
	if got := in.prop(t, "schedule").prop(t, "due").str("format"); got != "date-time" {
		t.Errorf("schedule.due format = %q", got)
	}
	if add.OutputSchema == nil {
		t.Error("add_note has no outputSchema")
	} else if !newSchema(t, add.OutputSchema).prop(t, "id").hasType("string") {
		t.Error("add_note outputSchema lacks id")
	}

	list, del := ts["list_notes"], ts["delete_note"]
	if a := list.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("list_notes annotations = %+v, want readOnly and closed world", a)
	}
	if a := del.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || !a.IdempotentHint {
		t.Errorf("delete_note annotations = %+v, want destructive and idempotent", a)
	}
	if a := add.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("add_note annotations = %+v, want neither readOnly nor destructive", a)
	}
	if got := newSchema(t, list.InputSchema).prop(t, "limit"); got.m["default"] != float64(20) {
		t.Errorf("list_notes limit default = %v", got.m["default"])
	}

	// A note's round trip.
	n := structured(t, call(t, cs, "add_note", map[string]any{
		"title":    "Renew passport",
		"tags":     []string{"admin"},
		"priority": "high",
		"schedule": map[string]any{"due": "2030-01-15T09:00:00Z", "estimateMinutes": 45},
	}))
	id, _ := n["id"].(string)
	if id == "" || n["priority"] != "high" || n["estimateMinutes"] != float64(45) || n["due"] != "2030-01-15T09:00:00Z" {
		t.Fatalf("add_note = %v", n)
	}
	structured(t, call(t, cs, "add_note", map[string]any{"title": "Buy milk"}))
	got := structured(t, call(t, cs, "list_notes", map[string]any{"tag": "admin"}))
	if got["total"] != float64(1) {
		t.Errorf("list_notes tag=admin = %v", got)
	}
	got = structured(t, call(t, cs, "list_notes", map[string]any{"sort": "priority", "limit": 1}))
	if notes, _ := got["notes"].([]any); got["total"] != float64(2) || len(notes) != 1 || notes[0].(map[string]any)["id"] != id {
		t.Errorf("list_notes sort=priority limit=1 = %v", got)
	}
	upd := structured(t, call(t, cs, "update_note", map[string]any{"id": id, "done": true}))
	if upd["done"] != true || upd["title"] != "Renew passport" {
		t.Errorf("update_note = %v", upd)
	}
	if res := call(t, cs, "delete_note", map[string]any{"id": id}); res.IsError || !strings.Contains(text(res), "deleted note "+id) {
		t.Errorf("delete_note = %v %q", res.IsError, text(res))
	}

	// Invalid arguments are tool errors the model can act on.
	wantError(t, call(t, cs, "add_note", map[string]any{"title": ""}), "title")
	wantError(t, call(t, cs, "add_note", map[string]any{"title": "x", "priority": "urgent"}), "priority")
	wantError(t, call(t, cs, "list_notes", map[string]any{"limit": 500}), "limit")
	wantError(t, call(t, cs, "get_note", map[string]any{"id": "12"}), "id")
	wantError(t, call(t, cs, "add_note", map[string]any{}), "title")
	// A handler's error is a tool error with its text.
	wantError(t, call(t, cs, "get_note", map[string]any{"id": id}), "no such note")
	wantError(t, call(t, cs, "add_note", map[string]any{"title": "   "}), "title is blank")
}

// TestDevServesExample runs `mcpgen dev` on examples/notes, calls a tool
// through its endpoint, and stops it with an interrupt (exit status 0).
func TestDevServesExample(t *testing.T) {
	t.Parallel()
	mcpgen := mcpgenBinary(t)
	dir := copyExample(t, "notes")
	cmd := exec.Command(mcpgen, "dev", dir, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "NOTES_FILE="+filepath.Join(t.TempDir(), "notes.db"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := endpointRE.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-endpoint:
	case err := <-exited:
		t.Fatalf("mcpgen dev exited before serving: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("mcpgen dev did not serve within 2 minutes\n%s", stderr.String())
	}
	cs := connectHTTP(t, url)
	res := structured(t, call(t, cs, "add_note", map[string]any{"title": "from dev"}))
	if res["title"] != "from dev" {
		t.Errorf("add_note through mcpgen dev = %v", res)
	}
	cs.Close()
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("mcpgen dev after an interrupt: %v, want exit status 0\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mcpgen dev did not stop within 30s of an interrupt")
	}
}

var endpointRE = regexp.MustCompile(`MCP endpoint\s+(http://\S+/mcp)`)
