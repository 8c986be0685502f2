package viewtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/fixture"
)

func solidPNG(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 20, 20))
	for y := range 20 {
		for x := range 20 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A screenshot that differs from its golden is taken again: one caught
// while the view was still painting passes on a second look, a view that
// changed fails on every look, and the screenshot kept is the last one.
func TestScreenshotRetakes(t *testing.T) {
	white, black := solidPNG(t, color.White), solidPNG(t, color.Black)
	setup := func(t *testing.T) (string, *Options, *Case) {
		dir := t.TempDir()
		c := &Case{Fixture: fixture.Fixture{Tool: "tool", Name: "case"}, Host: "claude", Theme: "light"}
		golden := filepath.Join(dir, fixture.Dir, "tool", "case.claude-light.png")
		if err := writeFile(golden, white); err != nil {
			t.Fatal(err)
		}
		return dir, &Options{Out: filepath.Join(dir, "out"), Tolerance: 0.01}, c
	}
	kept := func(t *testing.T, c *Case) []byte {
		t.Helper()
		b, err := os.ReadFile(c.Screenshot)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("painted late", func(t *testing.T) {
		dir, opts, c := setup(t)
		takes := 0
		screenshot(dir, opts, c, "case.claude-light", black, func() ([]byte, error) { takes++; return white, nil })
		if len(c.Failures) > 0 || !c.Compared || takes != 1 || !bytes.Equal(kept(t, c), white) {
			t.Fatalf("failures %q, compared %v, %d retakes; want none, true, 1, the golden kept", c.Failures, c.Compared, takes)
		}
	})
	t.Run("changed", func(t *testing.T) {
		dir, opts, c := setup(t)
		takes := 0
		screenshot(dir, opts, c, "case.claude-light", black, func() ([]byte, error) { takes++; return black, nil })
		if len(c.Failures) != 1 || !strings.Contains(c.Failures[0], "differs") || takes != retakes || c.Diff == "" {
			t.Fatalf("failures %q, %d retakes, diff %q; want one difference after %d retakes, with its diff image", c.Failures, takes, c.Diff, retakes)
		}
	})
	t.Run("update", func(t *testing.T) {
		dir, opts, c := setup(t)
		opts.Update = true
		screenshot(dir, opts, c, "case.claude-light", black, func() ([]byte, error) { t.Fatal("retaken under --update"); return nil, nil })
		if got, _ := os.ReadFile(c.Golden); !bytes.Equal(got, black) || !c.Updated {
			t.Fatal("--update did not write the golden")
		}
	})
}
