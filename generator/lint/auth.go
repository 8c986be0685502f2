package lint

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// EnvAuthIssuer is the environment variable a connector binary reads its
// --auth-issuer from; lint reads it too.
const EnvAuthIssuer = "MCPGEN_AUTH_ISSUER"

// ConfigFromEnv returns the configuration the environment states: the auth
// rules run when $MCPGEN_AUTH_ISSUER is set, and are skipped otherwise.
func ConfigFromEnv() Config {
	if v, ok := os.LookupEnv(EnvAuthIssuer); ok {
		return Config{AuthIssuer: v, AuthKnown: true}
	}
	return Config{}
}

// scoped is a tool, resource or prompt with its scope= option.
type scoped struct {
	subject
	scopes []string
}

func scopedSubjects(p *Pass) []scoped {
	var out []scoped
	for _, t := range p.Project.Tools {
		out = append(out, scoped{subject{"tool", t.Name, t.Title, t.Description, t.Func, t.Directive}, t.Scopes})
	}
	for _, r := range p.Project.Resources {
		out = append(out, scoped{subject{"resource", r.Name, r.Title, r.Description, r.Func, r.Directive}, r.Scopes})
	}
	for _, pr := range p.Project.Prompts {
		out = append(out, scoped{subject{"prompt", pr.Name, pr.Title, pr.Description, pr.Func, pr.Directive}, pr.Scopes})
	}
	return out
}

var scopeWithoutIssuer = &Rule{
	Code:     "AUTH001",
	Name:     "scope-without-issuer",
	Title:    "`scope=` needs an OAuth issuer",
	Severity: diag.Error,
	Doc: "`scope=` says which OAuth scopes a call needs, but scopes are checked only when\n" +
		"the connector runs with auth on (`--auth-issuer`). Deployed without an issuer,\n" +
		"the connector serves every tool, resource and prompt to anyone who reaches it,\n" +
		"`scope=` or not — a tool meant for admins is open to all.\n\n" +
		"Lint cannot see the flags the binary will be started with, so it is told the\n" +
		"issuer: `mcpgen lint --auth-issuer URL`, or `$MCPGEN_AUTH_ISSUER` (the variable\n" +
		"the binary reads too). `mcpgen generate` and `mcpgen dev` run this rule only\n" +
		"when `$MCPGEN_AUTH_ISSUER` is set.\n\n" +
		"Fix: deploy with `--auth-issuer https://issuer.example.com` (and lint with the\n" +
		"same issuer), or remove the `scope=` options if the connector is meant to be\n" +
		"open.",
	Run: func(p *Pass) {
		if !p.Config.AuthKnown || strings.TrimSpace(p.Config.AuthIssuer) != "" {
			return
		}
		for _, s := range scopedSubjects(p) {
			if len(s.scopes) == 0 {
				continue
			}
			pos := s.Directive.Pos
			if o, ok := s.Directive.Lookup("scope"); ok {
				pos = o.Pos
			}
			p.Report(pos, s.tool(), "run the connector with --auth-issuer URL (and lint with --auth-issuer or $MCPGEN_AUTH_ISSUER), or remove scope=",
				"%s %s needs the scopes %s, but no OAuth issuer is configured: without auth anyone can call it", s.Kind, s.Name, strings.Join(s.scopes, " "))
		}
	},
}

var issuerWithoutScopes = &Rule{
	Code:     "AUTH002",
	Name:     "issuer-without-scopes",
	Title:    "With an OAuth issuer, some tool declares `scope=`",
	Severity: diag.Warning,
	Doc: "With `--auth-issuer`, every caller needs a valid token — but a token is all\n" +
		"they need: without `scope=` on any tool, resource or prompt (and without\n" +
		"`--auth-scopes`), every user the issuer knows can call every tool, the\n" +
		"destructive ones included. Directory reviewers ask for least privilege.\n\n" +
		"Fix: add `scope=` to the tools that change or reveal more than every user may\n" +
		"(`//mcpgen:tool destructive scope=\"notes:write\"`), or require scopes of every\n" +
		"request with the binary's `--auth-scopes` when one scope covers all.",
	Run: func(p *Pass) {
		if !p.Config.AuthKnown || strings.TrimSpace(p.Config.AuthIssuer) == "" {
			return
		}
		for _, s := range scopedSubjects(p) {
			if len(s.scopes) > 0 {
				return
			}
		}
		if len(p.Project.Tools) == 0 {
			return
		}
		pos := diag.Pos{File: filepath.Join(p.Project.Dir, "go.mod"), Line: 1, Col: 1}
		p.Report(pos, "", `add scope="..." to the tools that change or reveal more than every user may, or run the binary with --auth-scopes`,
			"the connector is configured with the issuer %s but nothing declares scope=: every token the issuer grants can call every tool", p.Config.AuthIssuer)
	},
}
