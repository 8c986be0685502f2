package meta

// Message templates, kept together so the wording stays consistent.
const (
	msgRead        = "reading %s: %v"
	hintRead       = "make mcpgen.json readable, or remove it"
	msgSyntax      = "%s is not valid JSON: %s"
	hintSyntax     = "mcpgen.json is one JSON object (comments and trailing commas are allowed)"
	msgUnknown     = "unknown field %q in mcpgen.json%s"
	hintUnknown    = "valid fields here: %s"
	msgType        = "%s in mcpgen.json must be %s"
	hintType       = "see docs/distribute.md for the fields of mcpgen.json"
	msgSettingEnv  = "setting %d has no env: a setting reaches the server as an environment variable"
	hintSettingEnv = `add "env": "NAME", the variable your code reads with os.Getenv("NAME")`
	msgEnvName     = "setting env %q is not an environment variable name"
	hintEnvName    = "use capital letters, digits and underscores, starting with a letter (ACME_API_KEY)"
	msgSettingType = "setting %s has type %q"
	hintSettingTyp = "valid types: string, number, boolean, directory, file"
	msgSettingDup  = "setting %s is declared twice (%s %q)"
	hintSettingDup = "give every setting its own key and env"
	msgKey         = "setting key %q is not a user_config key"
	hintKey        = "use lower-case letters, digits and underscores (api_key)"
)
