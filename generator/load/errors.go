package load

const (
	msgNoGoMod      = "no go.mod in %s"
	hintNoGoMod     = "run mcpgen generate in the module root, or create one with: go mod init example.com/NAME"
	msgBadGoMod     = "go.mod has no module line"
	msgGoModSyntax  = "%v"
	hintGoModSyntax = "fix go.mod as the go command would read it (go mod edit -fmt shows the same error)"
	hintBadGoMod    = "add a line such as: module example.com/NAME"
	msgLoad         = "cannot load the module's packages: %v"
	hintLoad        = "check that the go command works here: go list ./..."
	msgNoPackages   = "no Go packages in %s"
	hintNoPackages  = "add main.go in package main; mcpgen new scaffolds one"
	msgPackageError = "%s"
	hintImport      = "check the import path %q, or add its module with go get, then run go mod tidy"
	msgNoRuntime    = "the generated code imports %s, which this module cannot load: %s"
	hintNoRuntime   = "add mcpgen to go.mod, pointing at a checkout of mcpgen: go mod edit -require=github.com/mcpgen/mcpgen@v0.0.0 -replace=github.com/mcpgen/mcpgen=/path/to/mcpgen && go mod tidy (mcpgen new writes this for you)"
	hintBadRuntime  = "mcpgen's runtime does not build with this module's dependencies: check the require and replace lines for github.com/mcpgen/mcpgen in go.mod, then run go mod tidy"
	msgGoList       = "the go command cannot list the module's packages: %s"
	hintGoList      = "fix go.mod (often: go mod tidy), then run mcpgen again"
	msgBadReplace   = "go.mod replaces %s with %s, which holds no go.mod"
	hintBadReplace  = "point the replace at the directory of the module's checkout (the one holding its go.mod), relative to this go.mod or absolute"
)
