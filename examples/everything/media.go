package main

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// redPixelPNG encodes a 1×1 red image as PNG.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img) // writing to memory cannot fail
	return b.Bytes()
}

// silentWAV encodes 10 ms of 8 kHz mono 16-bit silence as a RIFF WAVE file.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	data := make([]byte, 2*samples)
	var b bytes.Buffer
	put := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	put(uint32(36 + len(data)))
	b.WriteString("WAVEfmt ")
	put(uint32(16))       // fmt chunk size
	put(uint16(1))        // PCM
	put(uint16(1))        // channels
	put(uint32(rate))     // sample rate
	put(uint32(rate * 2)) // byte rate
	put(uint16(2))        // block align
	put(uint16(16))       // bits per sample
	b.WriteString("data")
	put(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}
