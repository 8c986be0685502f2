package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/mod/modfile"

	"github.com/mcpgen/mcpgen/generator/parse"
	"github.com/mcpgen/mcpgen/internal/install"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

var targetsHelp = "TARGET is one of: " + strings.Join(install.Targets(), ", ") + "."

func installCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "install",
		Usage:     "build the connector and add it to an MCP client's configuration",
		ArgsUsage: "TARGET [DIR] [--scope user|project] [--url URL [--transport http|sse|ws] | --dev] [--name NAME] [--env K=V]... [--dry-run]",
		Description: "Builds the connector in DIR (default: the current directory) with `mcpgen build`, into\n" +
			"DIR/<name of DIR>, and registers that binary (run with --stdio) in the client's own\n" +
			"configuration file. The edit keeps every other server and setting (and comments, in VS\n" +
			"Code's files), keeps the previous file as FILE.bak, and changes nothing when the entry\n" +
			"is already there. Restart (or reload) the client to pick it up.\n\n" +
			targetsHelp + "\n" +
			"  claude-desktop   Claude/claude_desktop_config.json in the user's config directory\n" +
			"  claude-code      ~/.claude.json (user) or ./.mcp.json (project)\n" +
			"  cursor           ~/.cursor/mcp.json (user) or ./.cursor/mcp.json (project)\n" +
			"  vscode           Code/User/mcp.json in the user's config directory, or ./.vscode/mcp.json\n" +
			"  mcp-json         ./.mcp.json\n\n" +
			"Examples:\n" +
			"  mcpgen install claude-desktop                 build ./ and add it to Claude Desktop\n" +
			"  mcpgen install claude-code ./acme --scope project\n" +
			"  mcpgen install cursor --dev                   Cursor starts `mcpgen dev --stdio DIR`\n" +
			"  mcpgen install vscode --url http://127.0.0.1:8080/mcp   a running server (mcpgen dev)\n" +
			"  mcpgen install claude-code --url http://127.0.0.1:8080 --transport sse   its /sse endpoint\n" +
			"  mcpgen install claude-desktop --env API_KEY=secret --dry-run   print the change only",
		Flags: append(configFlags(),
			&ucli.StringFlag{Name: "url", Usage: "register the running Streamable HTTP server at `URL` instead of building"},
			&ucli.StringFlag{Name: "transport", Usage: "with --url, reach the server by `T`: http (Streamable HTTP, /mcp), sse (/sse) or ws (WebSocket, /ws); Claude Code only"},
			&ucli.BoolFlag{Name: "dev", Usage: "register \"mcpgen dev --stdio DIR\" (rebuilds on every change) instead of a binary"},
			&ucli.StringSliceFlag{Name: "env", Usage: "set `K=V` in the server's environment; repeatable"},
		),
		Action: runInstall,
	}
}

func uninstallCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "uninstall",
		Usage:     "remove the connector from an MCP client's configuration",
		ArgsUsage: "TARGET [DIR] [--scope user|project] [--name NAME] [--dry-run]",
		Description: "Removes the server that `mcpgen install` added (the connector in DIR, by its name, or\n" +
			"--name) from the client's configuration file; every other server and setting stays.\n" +
			"The previous file is kept as FILE.bak. The binary is left where it is.\n\n" +
			targetsHelp + "\n\n" +
			"Examples:\n" +
			"  mcpgen uninstall claude-desktop\n" +
			"  mcpgen uninstall claude-code --scope project --name acme",
		Flags:  configFlags(),
		Action: runUninstall,
	}
}

func configFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "scope", Usage: "`user` (every project) or project (the current directory), where the client has both"},
		&ucli.StringFlag{Name: "config", Usage: "edit `FILE` instead of the client's usual file"},
		&ucli.StringFlag{Name: "name", Usage: "the server's `NAME` in the client (default: the connector's name)"},
		&ucli.BoolFlag{Name: "dry-run", Usage: "print the change as a diff; write nothing"},
	}
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// installTarget is what install and uninstall share: the client, its file,
// the project directory and the server's name.
type installTarget struct {
	client  *install.Client
	file    string
	dir     string // absolute project directory
	name    string
	private bool // the file is the user's own (not a project's, meant to be shared)
}

func parseInstallTarget(c *ucli.Context, needProject bool) (*installTarget, error) {
	verb := c.Command.Name
	if c.NArg() < 1 || c.NArg() > 2 {
		return nil, usagef("%s takes a TARGET and at most one directory, e.g. `mcpgen %s claude-desktop`; %s", verb, verb, targetsHelp)
	}
	target := c.Args().Get(0)
	client := install.Lookup(target)
	if client == nil {
		return nil, usagef("unknown target %q%s; %s", target, suggest(target, install.Targets()), targetsHelp)
	}
	dir := "."
	if c.NArg() == 2 {
		dir = c.Args().Get(1)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t := &installTarget{client: client, dir: abs, name: c.String("name")}

	scope := install.Scope(c.String("scope"))
	if scope != "" {
		if _, ok := client.Files[scope]; !ok {
			return nil, usagef("--scope %q: %s has %s", scope, client.Title, strings.Join(client.ScopeNames(), " or "))
		}
	}
	if f := c.String("config"); f != "" {
		if scope != "" {
			return nil, usagef("--config names the file itself: drop --scope")
		}
		t.file, err = filepath.Abs(f)
	} else {
		t.file, err = client.File(scope, install.Env{})
		if scope == "" {
			scope = client.DefaultScope
		}
		t.private = scope == install.User
	}
	if err != nil {
		return nil, err
	}

	if t.name == "" {
		if !needProject {
			if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
				return nil, usagef("name the server with --name (there is no connector in %s to name it after)", abs)
			}
		}
		mod, err := modulePath(abs)
		if err != nil {
			return nil, err
		}
		t.name = serverName(parse.ServerName(mod))
	} else if !serverNameRE.MatchString(t.name) {
		return nil, usagef("--name %q: use 1 to 64 letters, digits, '-' or '_' (hosts name tools SERVER__TOOL from it)", t.name)
	}
	return t, nil
}

// modulePath reads the module path from dir's go.mod.
func modulePath(dir string) (string, error) {
	gomod := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("%s has no go.mod: a connector is a Go module (create one with `mcpgen new DIR`)", dir)
	}
	mod := modfile.ModulePath(data)
	if mod == "" {
		return "", fmt.Errorf("%s: no module line", gomod)
	}
	return mod, nil
}

// serverName turns a connector's name into one every client accepts.
func serverName(s string) string {
	s = regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(s, "-")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "connector"
	}
	return s
}

func runInstall(c *ucli.Context) error {
	url, devMode, dryRun := c.String("url"), c.Bool("dev"), c.Bool("dry-run")
	if url != "" && devMode {
		return usagef("--url and --dev are two different ways to run the connector: give one")
	}
	transport := install.Transport(c.String("transport"))
	switch {
	case transport != "" && url == "":
		return usagef("--transport %s applies to a server reached by --url: add --url http://HOST:PORT", transport)
	case transport != "" && !slices.Contains(install.TransportNames, string(transport)):
		return usagef("--transport %q%s; valid: %s", transport, suggest(string(transport), install.TransportNames), strings.Join(install.TransportNames, ", "))
	}
	schemes := []string{"http://", "https://"}
	if transport != "" {
		schemes = append(schemes, "ws://", "wss://") // made the transport's own
	}
	if url != "" && !slices.ContainsFunc(schemes, func(p string) bool { return strings.HasPrefix(url, p) }) {
		return usagef("--url %q: want http://HOST:PORT/mcp or https://...", url)
	}
	t, err := parseInstallTarget(c, url == "")
	if err != nil {
		return err
	}
	entry := install.Entry{URL: url, Transport: transport}
	for _, kv := range c.StringSlice("env") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--env %q: want NAME=VALUE", kv)
		}
		if entry.Env == nil {
			entry.Env = map[string]string{}
		}
		entry.Env[k] = v
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter

	switch {
	case url != "":
	case devMode:
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("locating the mcpgen binary for --dev: %w", err)
		}
		if strings.Contains(filepath.ToSlash(self), "/go-build") && !strings.HasSuffix(self, ".test") {
			// `go run`'s binary is deleted when it exits: the client could
			// never start it.
			return usagef("--dev registers this mcpgen binary, but %s is a temporary one (go run): install mcpgen (go install ./cmd/mcpgen) and run that", self)
		}
		entry.Command, entry.Args = self, []string{"dev", "--stdio", t.dir}
	default:
		entry.Command = filepath.Join(t.dir, filepath.Base(t.dir))
		entry.Args = []string{"--stdio"}
	}
	rendered, err := t.client.Render(entry)
	if err != nil {
		return usagef("%v", err)
	}
	change, err := install.Add(t.file, t.client.Servers, t.name, rendered)
	if err != nil {
		return err
	}
	change.ClientLock = t.client.Lock
	if !change.Existed && t.private {
		change.Mode = 0o600 // the user's own configuration: env may hold secrets
	}

	if url == "" && !devMode {
		if dryRun {
			fmt.Fprintf(stdout, "would build %s\n", entry.Command)
		} else {
			rep, err := pipeline.Build(c.Context, pipeline.Options{Dir: t.dir, Minify: true, Stdout: stderr, Stderr: stderr}, entry.Command)
			if rep != nil && err == nil {
				printDiagnostics(stderr, rep.Dir, rep.Diagnostics)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "built %s%s\n", rep.Binary, contents(rep))
		}
	}
	return commit(c, change, t, "added "+t.name+" to")
}

func runUninstall(c *ucli.Context) error {
	t, err := parseInstallTarget(c, false)
	if err != nil {
		return err
	}
	change, err := install.Delete(t.file, t.client.Servers, t.name)
	if err != nil {
		return err
	}
	change.ClientLock = t.client.Lock
	return commit(c, change, t, "removed "+t.name+" from")
}

// commit prints or writes the change and says what happened.
func commit(c *ucli.Context, change *install.Change, t *installTarget, did string) error {
	stdout := c.App.Writer
	switch {
	case !change.Changed && c.Command.Name == "uninstall":
		fmt.Fprintf(stdout, "%s has no server %s; nothing to change\n", change.File, t.name)
		return nil
	case !change.Changed:
		fmt.Fprintf(stdout, "%s already has %s as it would be written; nothing to change\n", change.File, t.name)
		return nil
	case c.Bool("dry-run"):
		fmt.Fprint(stdout, change.Diff())
		return nil
	}
	if err := change.Write(); err != nil {
		return err
	}
	backup := ""
	if change.Existed {
		backup = fmt.Sprintf(" (previous version: %s)", change.Backup())
	}
	fmt.Fprintf(stdout, "%s %s%s; restart the client to pick it up\n", did, change.File, backup)
	return nil
}
