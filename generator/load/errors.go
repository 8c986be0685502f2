package load

const (
	msgNoGoMod      = "no go.mod in %s"
	hintNoGoMod     = "run mcpgen generate in the module root, or create one with: go mod init example.com/NAME"
	msgBadGoMod     = "go.mod has no module line"
	hintBadGoMod    = "add a line such as: module example.com/NAME"
	msgLoad         = "cannot load the module's packages: %v"
	hintLoad        = "check that the go command works here: go list ./..."
	msgNoPackages   = "no Go packages in %s"
	hintNoPackages  = "add main.go in package main; mcpgen new scaffolds one"
	msgPackageError = "%s"
	msgNoRuntime    = "the generated code imports %s, which this module cannot load: %s"
	hintNoRuntime   = "add mcpgen to the module: go get github.com/mcpgen/mcpgen@latest"
	msgGoList       = "the go command cannot list the module's packages: %s"
	hintGoList      = "fix go.mod (often: go mod tidy), then run mcpgen again"
)
