package imagediff

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func encode(t *testing.T, w, h int, paint func(x, y int) color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, paint(x, y))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCompare(t *testing.T) {
	white := func(x, y int) color.Color { return color.White }
	base := encode(t, 100, 100, white)

	// Same image, and a slight shade change under the threshold.
	for name, got := range map[string][]byte{
		"same":   base,
		"shaded": encode(t, 100, 100, func(x, y int) color.Color { return color.RGBA{240, 240, 240, 255} }),
	} {
		r, err := Compare(base, got, Options{})
		if err != nil || r.Differ || r.Changed != 0 || r.Diff != nil {
			t.Errorf("%s: %+v, %v; want no change", name, r, err)
		}
	}

	// 20 changed pixels of 10000 are within 0.5%; 100 are not.
	dots := func(n int) []byte {
		return encode(t, 100, 100, func(x, y int) color.Color {
			if y == 0 && x < n {
				return color.Black
			}
			return color.White
		})
	}
	r, err := Compare(base, dots(20), Options{})
	if err != nil || r.Differ || r.Changed != 20 || r.Diff == nil {
		t.Errorf("20 pixels: %+v, %v; want changed but within tolerance", r, err)
	}
	r, err = Compare(base, dots(100), Options{})
	if err != nil || !r.Differ || r.Changed != 100 {
		t.Errorf("100 pixels: %+v, %v; want a difference", r, err)
	}
	d, err := png.Decode(bytes.NewReader(r.Diff))
	if err != nil {
		t.Fatal(err)
	}
	if c := color.RGBAModel.Convert(d.At(5, 0)).(color.RGBA); c != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("diff at a changed pixel = %v, want red", c)
	}
	if c := color.RGBAModel.Convert(d.At(5, 50)).(color.RGBA); c.R != c.G || c.R < 200 {
		t.Errorf("diff at an unchanged pixel = %v, want faded grey", c)
	}
	if r, _ := Compare(base, dots(100), Options{Tolerance: 0.02}); r.Differ {
		t.Errorf("a 2%% tolerance still differs: %v", r)
	}

	// A size change always differs; the uncovered area is magenta.
	r, err = Compare(base, encode(t, 100, 110, white), Options{Tolerance: 0.5})
	if err != nil || !r.Differ || !r.SizeChanged || r.String() != "size changed from 100x100 to 100x110" {
		t.Errorf("size change: %+v (%s), %v", r, r, err)
	}
	d, _ = png.Decode(bytes.NewReader(r.Diff))
	if c := color.RGBAModel.Convert(d.At(50, 105)).(color.RGBA); c != (color.RGBA{255, 0, 255, 255}) {
		t.Errorf("diff outside the golden = %v, want magenta", c)
	}

	if _, err := Compare([]byte("not a png"), base, Options{}); err == nil {
		t.Error("a broken golden compared without an error")
	}
}
