package browser

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// host serves a page that shows a view from a second origin (another port)
// in an iframe inside the element carrying data-app-status, as the inspector
// does; the view page is given by viewHTML and served with a strict CSP.
func host(t *testing.T, viewHTML string) string {
	t.Helper()
	view := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
		w.Write([]byte(viewHTML))
	}))
	t.Cleanup(view.Close)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><body style="margin:0;background:#fff">
<div id="view" data-app-status="loading" style="width:300px;height:120px"><iframe style="border:0;width:300px;height:120px" src="` + view.URL + `/"></iframe></div>
<script>
const status = new URLSearchParams(location.search).get("status");
if (status) document.querySelector("iframe").addEventListener("load", () => document.getElementById("view").setAttribute("data-app-status", status));
</script></body>`))
	}))
	t.Cleanup(app.Close)
	return app.URL
}

func launch(t *testing.T) *Browser {
	t.Helper()
	b, err := Launch(context.Background(), Options{Exec: testenv.Chromium(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// openReady opens the host page at url with its view ready, and closes it
// when the test ends.
func openReady(t *testing.T, b *Browser, url string) *View {
	t.Helper()
	v, err := b.Open(context.Background(), url+"/?status=ready", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	if v.Status != StatusReady {
		t.Fatalf("status %q (%s)", v.Status, v.Error)
	}
	return v
}

func TestViewProblems(t *testing.T) {
	b := launch(t)
	url := host(t, `<!doctype html><body style="margin:0;background:rgb(200,30,30);color:#fff">
<h1 class="t">Hello</h1><p class="t">World</p>
<script>
console.log("fine");
console.error("boom", 42);
fetch("http://127.0.0.1:9/blocked").catch(() => {});
setTimeout(() => { throw new Error("kaput"); });
</script></body>`)
	ctx := context.Background()
	v := openReady(t, b, url)
	text, err := v.Text(ctx)
	if err != nil || !strings.Contains(text, "Hello") || !strings.Contains(text, "World") {
		t.Errorf("Text = %q, %v", text, err)
	}
	got, err := v.Query(ctx, ".t")
	if err != nil || strings.Join(got, "|") != "Hello|World" {
		t.Errorf("Query(.t) = %q, %v", got, err)
	}
	shot, err := v.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 120 {
		t.Errorf("screenshot is %v, want 300×120", b)
	}
	if r, g, _, _ := img.At(150, 100).RGBA(); r>>8 < 180 || g>>8 > 60 {
		t.Errorf("screenshot pixel (150,100) = %v, want the view's red", img.At(150, 100))
	}

	// Every kind of problem arrives; the log message does not.
	want := map[string]string{"console": "boom 42", "csp": "Content Security Policy", "exception": "kaput"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing := ""
		for kind, text := range want {
			found := false
			for _, p := range v.Problems() {
				found = found || (p.Kind == kind && strings.Contains(p.Text, text))
			}
			if !found {
				missing = kind
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s problem; got %v", missing, v.Problems())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range v.Problems() {
		if strings.Contains(p.Text, "fine") {
			t.Errorf("console.log reported as a problem: %v", p)
		}
	}
}

func TestViewStatus(t *testing.T) {
	b := launch(t)
	url := host(t, `<p>x</p>`)
	ctx := context.Background()
	v, err := b.Open(ctx, url+"/?status=error", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	if v.Status != StatusError {
		t.Errorf("status %q, want error", v.Status)
	}
	// A view that never gets ready times out, bounded by the time given.
	v, err = b.Open(ctx, url+"/", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	if v.Status != StatusTimeout {
		t.Errorf("status %q, want timeout", v.Status)
	}
}

func TestFindHonoursEnv(t *testing.T) {
	t.Setenv("MCPGEN_CHROME", "/nonexistent/chrome")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "MCPGEN_CHROME=/nonexistent/chrome") {
		t.Errorf("Find with a bad MCPGEN_CHROME = %v", err)
	}
	t.Setenv("MCPGEN_CHROME", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); err != ErrNoChromium {
		t.Errorf("Find without a browser = %v, want ErrNoChromium", err)
	}
}
