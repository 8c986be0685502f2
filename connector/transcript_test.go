package connector_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/connector"
)

// update rewrites the expected sections of the transcripts in
// testdata/transcripts: go test ./connector -run Transcript -update
var update = flag.Bool("update", false, "rewrite the expected sections of testdata/transcripts/*.txtar")

// A transcript is a txtar file recording what a client sends a connector
// and what it gets back, byte for byte where bytes matter: the rules hosts
// rely on (status codes, error codes, ids echoed as sent) are asserted on
// the wire rather than through a client library that might hide them.
//
// An HTTP transcript has the sections "http.in" and "http.out". Each
// request in http.in is a method line, header lines ("Name: value") and a
// body line, requests separated by blank lines. POST requests get
// Content-Type: application/json and Accept: application/json,
// text/event-stream unless they set them. A method line ending in " &"
// sends the request without waiting for its answer: the next request goes
// once its handler has started (see transcriptApp's wait tool). "$session"
// in a header stands for the first Mcp-Session-Id the connector gave out,
// "$session2" for the second, and so on.
//
// http.out holds one block per request, in the order of http.in: the
// status code, the headers that matter (Content-Type, Mcp-Session-Id,
// Allow), and the JSON-RPC messages of the body one a line (an event
// stream's data events; its priming events are left out). JSON is printed
// with sorted keys but with every number exactly as sent; session ids are
// replaced by their names.
//
// A stdio transcript has "stdio.in", lines written to the connector's
// input one at a time (each but a notification waiting for its answer),
// and "stdio.out", the lines it wrote, normalised as above. Its line limit
// is transcriptMaxLine bytes.
//
// Every HTTP transcript runs twice: with the connector's fast path, and
// with the fast path off (Server.MCP turns it off), so that every request
// goes through the go-sdk. Both must give the same transcript.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var (
				in, wantName string
				got          []string // per run
				runs         []string
			)
			switch {
			case section(ar, "http.in") != nil:
				in, wantName = string(section(ar, "http.in").Data), "http.out"
				for _, path := range []string{"fast", "go-sdk"} {
					runs = append(runs, path)
					got = append(got, runHTTPTranscript(t, in, path == "fast"))
				}
			case section(ar, "stdio.in") != nil:
				in, wantName = string(section(ar, "stdio.in").Data), "stdio.out"
				runs = append(runs, "stdio")
				got = append(got, runStdioTranscript(t, in))
			default:
				t.Fatalf("%s has neither an http.in nor a stdio.in section", file)
			}
			if *update {
				if len(got) == 2 && anyFraming(got[0]) != anyFraming(got[1]) {
					t.Errorf("the fast path and the go-sdk path differ; writing the fast path's transcript (-go-sdk +fast):\n%s", diffLines(got[1], got[0]))
				}
				setSection(ar, wantName, got[0])
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := section(ar, wantName)
			if want == nil {
				t.Fatalf("%s has no %s section; run go test -run Transcript -update", file, wantName)
			}
			for i, g := range got {
				w := string(want.Data)
				if runs[i] == "go-sdk" {
					w, g = anyFraming(w), anyFraming(g)
				}
				if g != w {
					t.Errorf("%s (%s path): the transcript differs (-want +got):\n%s", file, runs[i], diffLines(w, g))
				}
			}
		})
	}
}

// anyFraming erases whether a 200 answer came as a JSON body or as an
// event stream: the spec lets the server choose, and the choice is the
// point of the fast path (a call that can send nothing but its result is
// answered application/json, where the go-sdk opens an event stream). The
// fast path's run is compared as it is, the go-sdk's through anyFraming.
func anyFraming(s string) string {
	return framing.ReplaceAllString(s, "${1}Content-Type: (application/json or text/event-stream)")
}

var framing = regexp.MustCompile(`(?m)^(200\n)Content-Type: (application/json|text/event-stream)$`)

func section(ar *txtar.Archive, name string) *txtar.File {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			return &ar.Files[i]
		}
	}
	return nil
}

func setSection(ar *txtar.Archive, name, data string) {
	if f := section(ar, name); f != nil {
		f.Data = []byte(data)
		return
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// diffLines shows how got differs from want, line by line: "-" lines
// are wanted and missing, "+" lines are extra, a few lines of context
// around each change.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of w[i:]
	// and g[j:]; transcripts are short enough for the table.
	lcs := make([][]int, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			lines = append(lines, line{' ', w[i]})
			i, j = i+1, j+1
		case j < len(g) && (i == len(w) || lcs[i][j+1] >= lcs[i+1][j]):
			lines = append(lines, line{'+', g[j]})
			j++
		default:
			lines = append(lines, line{'-', w[i]})
			i++
		}
	}
	const context = 3
	var b strings.Builder
	last := -1 // the last line printed
	for k, l := range lines {
		if l.op == ' ' {
			continue
		}
		from := max(k-context, last+1)
		if last >= 0 && from > last+1 {
			b.WriteString("...\n")
		}
		for c := from; c < k; c++ {
			fmt.Fprintf(&b, "  %s\n", lines[c].text)
		}
		fmt.Fprintf(&b, "%c %s\n", l.op, l.text)
		last = k
		for c := k + 1; c < len(lines) && c <= k+context && lines[c].op == ' '; c++ {
			fmt.Fprintf(&b, "  %s\n", lines[c].text)
			last = c
		}
	}
	return b.String()
}

// transcriptApp is the connector the transcripts talk to: one quick tool,
// one that waits until cancelled, one fixed resource and one template.
func transcriptApp(started chan<- struct{}) *connector.App {
	return &connector.App{
		Name:    "transcript",
		Version: "1.0.0",
		Tools: []connector.Tool{
			{
				Name: "echo", Description: "Echoes its text.", Result: connector.ResultText,
				InputSchema: `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`,
				Annotations: connector.Annotations{ReadOnly: true, Idempotent: true},
				Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
					var in struct {
						Text string `json:"text"`
					}
					if err := connector.Decode(args, &in); err != nil {
						return nil, err
					}
					return in.Text, nil
				},
			},
			{
				Name: "wait", Description: "Waits until cancelled.", InputSchema: emptyInput, Result: connector.ResultText,
				Annotations: connector.Annotations{ReadOnly: true},
				Handler: noInput(func(ctx context.Context) (any, error) {
					started <- struct{}{}
					select {
					case <-ctx.Done():
						return "", ctx.Err()
					case <-time.After(10 * time.Second):
						return "not cancelled", nil
					}
				}),
			},
		},
		Resources: []connector.Resource{
			{
				URI: "test://static-text", Name: "static-text", MIMEType: "text/plain", Result: connector.ResultText,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					return "static", nil
				},
			},
			{
				URI: "test://orders/{id}", Template: true, Name: "order", MIMEType: "application/json", Result: connector.ResultText,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					return nil, fmt.Errorf("order %s: %w", vars["id"], connector.ErrNotFound)
				},
			},
		},
	}
}

// transcriptIDs names the session ids a transcript has seen and normalises the
// messages it prints.
type transcriptIDs struct {
	sessions []string
}

func (w *transcriptIDs) name(i int) string {
	if i == 0 {
		return "$session"
	}
	return fmt.Sprintf("$session%d", i+1)
}

// expand replaces session names with the ids they stand for.
func (w *transcriptIDs) expand(s string) string {
	for i := len(w.sessions) - 1; i >= 0; i-- { // $session10 before $session1
		s = strings.ReplaceAll(s, w.name(i), w.sessions[i])
	}
	return s
}

// hide replaces session ids with their names, learning new ones.
func (w *transcriptIDs) hide(s string, learn bool) string {
	if learn && s != "" && !strings.Contains(strings.Join(w.sessions, "\n"), s) {
		w.sessions = append(w.sessions, s)
	}
	for i, id := range w.sessions {
		s = strings.ReplaceAll(s, id, w.name(i))
	}
	return s
}

// message prints one JSON-RPC message: sorted keys, numbers as sent, no
// HTML escaping; anything that is not JSON as it is.
func (w *transcriptIDs) message(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return w.hide(string(raw), false)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return w.hide(string(raw), false)
	}
	return w.hide(strings.TrimSpace(b.String()), false)
}

type transcriptRequest struct {
	method string
	async  bool
	header http.Header
	body   string
}

var headerLine = regexp.MustCompile(`^[A-Za-z0-9-]+: `)

func parseHTTPIn(t *testing.T, in string) []transcriptRequest {
	var reqs []transcriptRequest
	for _, block := range strings.Split(strings.TrimSpace(in), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		method, async := strings.CutSuffix(lines[0], " &")
		req := transcriptRequest{method: method, async: async, header: http.Header{}}
		if method == http.MethodPost {
			req.header.Set("Content-Type", "application/json")
			req.header.Set("Accept", "application/json, text/event-stream")
		}
		var body []string
		for _, l := range lines[1:] {
			if len(body) == 0 && headerLine.MatchString(l) {
				k, v, _ := strings.Cut(l, ": ")
				req.header.Set(k, v)
				continue
			}
			body = append(body, l)
		}
		req.body = strings.Join(body, "\n")
		switch method {
		case http.MethodPost, http.MethodGet, http.MethodDelete:
		default:
			t.Fatalf("http.in: %q is not a request line (POST, GET or DELETE, optionally followed by \" &\")", lines[0])
		}
		reqs = append(reqs, req)
	}
	return reqs
}

// runHTTPTranscript serves transcriptApp over HTTP, sends it the requests
// of in and returns what it answered, as http.out prints it.
func runHTTPTranscript(t *testing.T, in string, fast bool) string {
	t.Helper()
	started := make(chan struct{}, 8)
	s, err := connector.NewServer(transcriptApp(started), connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if !fast {
		s.MCP() // once the go-sdk server is given away, every request goes through it
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	client := ts.Client()
	client.Timeout = 20 * time.Second

	w := &transcriptIDs{}
	reqs := parseHTTPIn(t, in)
	answers := make([]chan string, len(reqs))
	for i, req := range reqs {
		answers[i] = make(chan string, 1)
		var body io.Reader
		if req.body != "" {
			body = strings.NewReader(w.expand(req.body))
		}
		hr, err := http.NewRequest(req.method, ts.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range req.header {
			hr.Header[k] = []string{w.expand(vs[0])}
		}
		do := func() {
			resp, err := client.Do(hr)
			if err != nil {
				answers[i] <- "error: " + err.Error()
				return
			}
			defer resp.Body.Close()
			answers[i] <- printResponse(w, resp)
		}
		if !req.async {
			do()
			continue
		}
		done := make(chan struct{})
		go func() { defer close(done); do() }()
		select {
		case <-started:
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("request %d (async) neither started a handler nor was answered", i+1)
		}
	}
	var out strings.Builder
	for i := range reqs {
		select {
		case a := <-answers[i]:
			out.WriteString(a)
		case <-time.After(15 * time.Second):
			t.Fatalf("request %d got no answer", i+1)
		}
		out.WriteString("\n")
	}
	return out.String()
}

// printResponse prints resp as http.out shows it. It reads the body to its
// end, so it learns the session id before the next request needs it.
func printResponse(w *transcriptIDs, resp *http.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", resp.StatusCode)
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		fmt.Fprintf(&b, "Content-Type: %s\n", ct)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		fmt.Fprintf(&b, "Mcp-Session-Id: %s\n", w.hide(sid, true))
	}
	if allow := resp.Header.Get("Allow"); allow != "" {
		fmt.Fprintf(&b, "Allow: %s\n", allow)
	}
	data, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// One line per data event; priming events have empty data.
		for _, event := range strings.Split(string(data), "\n\n") {
			var d []string
			for _, l := range strings.Split(event, "\n") {
				if v, ok := strings.CutPrefix(l, "data:"); ok {
					d = append(d, strings.TrimPrefix(v, " "))
				}
			}
			if msg := strings.Join(d, "\n"); strings.TrimSpace(msg) != "" {
				b.WriteString(w.message([]byte(msg)) + "\n")
			}
		}
		return b.String()
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		b.WriteString(w.message([]byte(s)) + "\n")
	}
	return b.String()
}

// transcriptMaxLine is the line limit of stdio transcripts, small so that
// an over-long line fits in one.
const transcriptMaxLine = 256

// runStdioTranscript serves transcriptApp over ServeIO, writes it the
// lines of in one at a time, and returns the lines it wrote.
func runStdioTranscript(t *testing.T, in string) string {
	t.Helper()
	s, err := connector.NewServer(transcriptApp(make(chan struct{}, 8)),
		connector.WithLogger(quietLogger(nil)), connector.WithMaxLineBytes(transcriptMaxLine))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeIO(ctx, inR, outW); outW.Close() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	w := &transcriptIDs{}
	var out strings.Builder
	next := func() bool {
		select {
		case l, ok := <-lines:
			if ok {
				out.WriteString(w.message([]byte(l)) + "\n")
			}
			return ok
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer after 10s; so far:\n%s", out.String())
			return false
		}
	}
	for _, l := range strings.Split(strings.TrimRight(in, "\n"), "\n") {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
		if !isNotification(l) {
			next()
		}
	}
	inW.Close() // anything more the connector writes comes out at the end
	for next() {
	}
	if err := <-served; err != nil && ctx.Err() == nil {
		fmt.Fprintf(&out, "# served: %v\n", err)
	}
	return out.String()
}

// isNotification reports whether line is a JSON-RPC notification, which
// gets no answer.
func isNotification(line string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	return hasMethod && !hasID
}

// TestTranscriptPaths checks that the two runs of an HTTP transcript take
// different paths: a 2026-07-28 tools/call is answered application/json by
// the fast path and on an event stream by the go-sdk. Were Server.MCP to
// stop turning the fast path off, the go-sdk run would test nothing new.
func TestTranscriptPaths(t *testing.T) {
	const in = "POST\nMcp-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: echo\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	for fast, want := range map[bool]string{true: "application/json", false: "text/event-stream"} {
		if got := runHTTPTranscript(t, in, fast); !strings.HasPrefix(got, "200\nContent-Type: "+want+"\n") {
			t.Errorf("fast path %v: the answer is\n%s\nwant 200 with Content-Type %s", fast, got, want)
		}
	}
}
