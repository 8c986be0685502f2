//go:build unix

package telemetry

import "syscall"

// mapBatchMemory returns size bytes (a whole number of pages) of
// anonymous memory mapped for a batch of encoded spans, outside the Go
// heap, or nil when the system refuses.
func mapBatchMemory(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

// unmapBatchMemory gives back memory of mapBatchMemory's, all of it.
func unmapBatchMemory(b []byte) { syscall.Munmap(b) }
