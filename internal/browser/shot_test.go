package browser

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// TestOneColour: a frame not painted yet (one colour) is told from a
// painted one by a single pixel; bytes that are not a PNG are not taken
// for a blank frame.
func TestOneColour(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := range 40 {
			img.Set(x, y, color.RGBA{0x26, 0x26, 0x24, 0xff})
		}
	}
	encode := func() []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if !oneColour(encode()) {
		t.Error("a one-colour picture is not seen as blank")
	}
	img.Set(39, 29, color.RGBA{0xff, 0, 0, 0xff})
	if oneColour(encode()) {
		t.Error("a picture with one pixel of another colour is seen as blank")
	}
	if oneColour([]byte("not a png")) {
		t.Error("bytes that are not a PNG are seen as a blank picture")
	}
}
