//go:build !unix

package telemetry

// mapBatchMemory maps nothing here: batches stay in the Go heap.
func mapBatchMemory(int) []byte { return nil }

func unmapBatchMemory([]byte) {}
