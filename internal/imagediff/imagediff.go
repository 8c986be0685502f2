// Package imagediff compares a screenshot with its golden image within a
// tolerance and draws where they differ: differing pixels in red over a
// faded copy of the golden, and any area only one of them covers in
// magenta.
package imagediff

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// Options tune Compare.
type Options struct {
	// Threshold is how far (0-255) one channel of a pixel may move before
	// the pixel counts as changed: anti-aliasing and font rendering move
	// edges slightly. Default 32.
	Threshold int
	// Tolerance is the fraction of pixels (0-1) allowed to change before
	// the images differ. Default 0.005.
	Tolerance float64
}

// Result says how two images compare.
type Result struct {
	// Changed counts the pixels that changed (including those only one
	// image covers); Total is the pixels of the larger extent.
	Changed, Total int
	// SizeChanged reports different dimensions, which always differ.
	SizeChanged bool
	WantSize    image.Point
	GotSize     image.Point
	// Differ reports whether the change is beyond the tolerance.
	Differ bool
	// Diff is a PNG showing the changes; nil when nothing changed.
	Diff []byte
}

func (r Result) String() string {
	if r.SizeChanged {
		return fmt.Sprintf("size changed from %dx%d to %dx%d", r.WantSize.X, r.WantSize.Y, r.GotSize.X, r.GotSize.Y)
	}
	return fmt.Sprintf("%d of %d pixels changed (%.2f%%)", r.Changed, r.Total, 100*float64(r.Changed)/float64(max(r.Total, 1)))
}

// Compare compares two PNG images.
func Compare(want, got []byte, opts Options) (Result, error) {
	if opts.Threshold == 0 {
		opts.Threshold = 32
	}
	if opts.Tolerance == 0 {
		opts.Tolerance = 0.005
	}
	wi, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		return Result{}, fmt.Errorf("reading the golden image: %w", err)
	}
	gi, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		return Result{}, fmt.Errorf("reading the screenshot: %w", err)
	}
	wb, gb := wi.Bounds(), gi.Bounds()
	r := Result{WantSize: wb.Size(), GotSize: gb.Size()}
	r.SizeChanged = r.WantSize != r.GotSize
	w, h := max(wb.Dx(), gb.Dx()), max(wb.Dy(), gb.Dy())
	r.Total = w * h
	diff := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			inW := x < wb.Dx() && y < wb.Dy()
			inG := x < gb.Dx() && y < gb.Dy()
			if !inW || !inG {
				r.Changed++
				diff.Set(x, y, color.RGBA{255, 0, 255, 255})
				continue
			}
			a := color.RGBAModel.Convert(wi.At(wb.Min.X+x, wb.Min.Y+y)).(color.RGBA)
			b := color.RGBAModel.Convert(gi.At(gb.Min.X+x, gb.Min.Y+y)).(color.RGBA)
			if far(a.R, b.R, opts.Threshold) || far(a.G, b.G, opts.Threshold) || far(a.B, b.B, opts.Threshold) || far(a.A, b.A, opts.Threshold) {
				r.Changed++
				diff.Set(x, y, color.RGBA{255, 0, 0, 255})
				continue
			}
			// Unchanged: the golden, faded toward white.
			g := uint8((int(a.R)*299 + int(a.G)*587 + int(a.B)*114) / 1000)
			f := 255 - (255-g)/4
			diff.Set(x, y, color.RGBA{f, f, f, 255})
		}
	}
	r.Differ = r.SizeChanged || float64(r.Changed) > opts.Tolerance*float64(r.Total)
	if r.Changed > 0 {
		var buf bytes.Buffer
		if err := png.Encode(&buf, diff); err != nil {
			return r, err
		}
		r.Diff = buf.Bytes()
	}
	return r, nil
}

func far(a, b uint8, threshold int) bool {
	d := int(a) - int(b)
	return d > threshold || d < -threshold
}
