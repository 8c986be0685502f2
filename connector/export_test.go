package connector

// SessionCount returns how many sessions s has open, for tests.
func SessionCount(s *Server) int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// FastSessionCount returns how many sessions the fast path knows of, for
// tests.
func FastSessionCount(s *Server) int {
	n := 0
	s.fastPath.sessions.Range(func(any, any) bool { n++; return true })
	return n
}
