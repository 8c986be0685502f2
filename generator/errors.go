package generator

// Message templates, kept together so the wording stays consistent.
const (
	msgEmit  = "generating %s: %v"
	hintEmit = "this is a bug in mcpgen; please report it with the directive and types involved"
)
