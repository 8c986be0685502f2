package typecheck

const (
	msgNoTypeScript = "%s has a tsconfig.json but no TypeScript compiler in node_modules: run `npm install --save-dev typescript` there (or skip the check with --no-typecheck)"
	msgNoNode       = "the views' type check needs Node.js: install it (node on PATH, or set MCPGEN_NODE), or skip the check with --no-typecheck"
)
