package runtime

// SessionCount returns how many sessions s has open, for tests.
func SessionCount(s *Server) int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}
