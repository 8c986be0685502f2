package mcpb

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
)

// fatAlign is the alignment of every architecture's slice in a universal
// binary: 2^14, the page size of Apple silicon, as Apple's lipo uses.
const fatAlign = 14

// Universal merges Mach-O binaries of different architectures into one
// universal ("fat") binary, from which macOS runs the slice for the
// machine. Each slice is kept byte for byte, its code signature with it.
func Universal(slices ...[]byte) ([]byte, error) {
	type arch struct {
		cpu, sub uint32
		data     []byte
	}
	var arches []arch
	for i, s := range slices {
		f, err := macho.NewFile(bytes.NewReader(s))
		if err != nil {
			return nil, fmt.Errorf("binary %d is not a Mach-O file: %w", i+1, err)
		}
		arches = append(arches, arch{uint32(f.Cpu), f.SubCpu, s})
		f.Close()
	}
	var out bytes.Buffer
	be := binary.BigEndian
	header := make([]byte, 8+20*len(arches))
	be.PutUint32(header[0:], macho.MagicFat)
	be.PutUint32(header[4:], uint32(len(arches)))
	off := uint32(len(header))
	for i, a := range arches {
		off = (off + 1<<fatAlign - 1) &^ (1<<fatAlign - 1)
		e := header[8+20*i:]
		be.PutUint32(e[0:], a.cpu)
		be.PutUint32(e[4:], a.sub)
		be.PutUint32(e[8:], off)
		be.PutUint32(e[12:], uint32(len(a.data)))
		be.PutUint32(e[16:], fatAlign)
		off += uint32(len(a.data))
	}
	out.Write(header)
	for i, a := range arches {
		start := be.Uint32(header[8+20*i+8:])
		out.Write(make([]byte, int(start)-out.Len()))
		out.Write(a.data)
	}
	return out.Bytes(), nil
}
