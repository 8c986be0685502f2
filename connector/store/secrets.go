package store

import "context"

// Secrets holds named random keys shared by everything using the store,
// such as the key that signs requestState across replicas.
//
// Contract:
//   - Key returns the key named name, creating it from size bytes of
//     crypto/rand the first time. Every later call, from any goroutine or
//     replica, returns the same bytes, even when the first calls race
//     (get-or-create is atomic); size only matters to the call that
//     creates it.
//   - Keys do not expire.
type Secrets interface {
	Key(ctx context.Context, name string, size int) ([]byte, error)
}
