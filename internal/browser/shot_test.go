package browser

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"
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

// TestScreenshotAttemptsBounded: an attempt at a screenshot that does not
// finish (here: the element holding the view is hidden, so the capture
// waits for it to show) is given up after shotAttempt and made again, so a
// stall that ends is survived, and one that does not is reported after
// shotAttempts attempts, where it used to hold the step for the whole
// action timeout (30 s) and then fail it.
func TestScreenshotAttemptsBounded(t *testing.T) {
	defer func(d time.Duration) { shotAttempt = d }(shotAttempt)
	shotAttempt = time.Second
	b := launch(t)
	url := host(t, `<!doctype html><body style="margin:0;background:rgb(30,30,200)"><p>x</p></body>`)
	ctx := context.Background()
	v := openReady(t, b, url)
	hide := func(showAfter string) {
		t.Helper()
		if _, err := v.HostEval(ctx, `(() => {
  const el = document.getElementById("view");
  el.style.display = "none";
  if (`+showAfter+` > 0) setTimeout(() => { el.style.display = "block"; }, `+showAfter+`);
  return true;
})()`); err != nil {
			t.Fatal(err)
		}
	}

	// Shown again during the second attempt: that attempt takes it.
	hide("1500")
	shot, err := v.Screenshot(ctx)
	if err != nil {
		t.Fatalf("screenshot of a view hidden for 1.5 s: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 120 {
		t.Errorf("screenshot is %v, want 300×120", b)
	}

	// Never shown: an error after the attempts, not after the action
	// timeout.
	hide("0")
	start := time.Now()
	if _, err := v.Screenshot(ctx); err == nil {
		t.Error("a screenshot of a view that never shows succeeded")
	}
	if d := time.Since(start); d > actionTimeout/2 {
		t.Errorf("a screenshot that cannot be taken took %v to fail; want about %d × %v", d.Round(time.Millisecond), shotAttempts, shotAttempt)
	}
}
