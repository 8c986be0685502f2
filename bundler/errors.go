package bundler

// Message templates of the bundler's diagnostics, kept together so their
// wording stays consistent.
const (
	msgUnknownOption    = "unknown //mcpgen:view option %q"
	hintUnknownOption   = "valid options: %s"
	msgUnknownPerm      = "unknown permission %q"
	hintUnknownPerm     = "valid permissions: %s"
	msgMissingValue     = "//mcpgen:view option %s needs a value"
	hintMissingValue    = "write %s=VALUE"
	msgUnexpectedValue  = "//mcpgen:view option %s takes no value"
	hintUnexpectedValue = "write just %s"
	msgBadDomain        = "%s: %q is not an origin"
	hintBadDomain       = "write a scheme and host, e.g. https://api.example.com (wildcards such as https://*.example.com are allowed)"
	msgUnquoted         = "unterminated quoted value"
	hintUnquoted        = "close the value with a double quote"
	msgSpaced           = "\"// mcpgen:\" is not a directive: there must be no space after //"
	hintSpaced          = "write //mcpgen:view"
	msgUnknownDirective = "unknown directive //mcpgen:%s in a view"
	hintUnknownDir      = "views take //mcpgen:view"
	msgLateDirective    = "//mcpgen:view must be in the comments at the top of the file, before any code"
	hintLateDirective   = "move it above the imports, into the comments that open the file"
	msgBorderConflict   = "//mcpgen:view gives both border and noborder"
	hintBorderConflict  = "keep one of them"
	msgDuplicateView    = "view %q is defined twice: %s and %s"
	hintDuplicateView   = "rename or remove one of them"
	msgBadViewName      = "%s: %q is not a valid view name"
	hintBadViewName     = "view names use letters, digits, '-' and '_' (helper components belong in a subdirectory such as ui/components/)"
	msgNoDefaultExport  = "%s has no default export"
	hintNoDefaultExport = "export the view's React component: export default function View() { ... }"
	hintNoReact         = "views need react and react-dom: add a package.json at the module root with \"react\", \"react-dom\", \"@types/react\" and \"@types/react-dom\", then run npm install"
	hintMcpgenUI        = "import the hooks from \"mcpgen/ui\" exactly: mcpgen provides that module, nothing needs installing"
)
