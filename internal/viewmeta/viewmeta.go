// Package viewmeta turns what a view declares about its sandbox (the
// domains its Content Security Policy allows, the permissions it asks for,
// its origin, its border) into the _meta.ui object MCP Apps hosts read on
// the view's resource. A built connector and mcpgen dev's front both serve
// views with it, so a view gets the same _meta from either.
package viewmeta

// Meta is a view's declaration. connector.ViewMeta and the generator's
// ir.ViewMeta have the same fields and convert to it.
type Meta struct {
	ConnectDomains  []string
	ResourceDomains []string
	FrameDomains    []string
	BaseURIDomains  []string
	Permissions     []string
	Domain          string
	PrefersBorder   *bool
	Title           string
	Description     string
}

// UI returns the view resource's _meta.ui: csp, permissions, domain and
// prefersBorder, each only when set; nil when nothing is.
func UI(m Meta) map[string]any {
	ui := map[string]any{}
	csp := map[string]any{}
	for k, v := range map[string][]string{
		"connectDomains":  m.ConnectDomains,
		"resourceDomains": m.ResourceDomains,
		"frameDomains":    m.FrameDomains,
		"baseUriDomains":  m.BaseURIDomains,
	} {
		if len(v) > 0 {
			csp[k] = v
		}
	}
	if len(csp) > 0 {
		ui["csp"] = csp
	}
	if len(m.Permissions) > 0 {
		perms := map[string]any{}
		for _, p := range m.Permissions {
			perms[p] = map[string]any{}
		}
		ui["permissions"] = perms
	}
	if m.Domain != "" {
		ui["domain"] = m.Domain
	}
	if m.PrefersBorder != nil {
		ui["prefersBorder"] = *m.PrefersBorder
	}
	if len(ui) == 0 {
		return nil
	}
	return ui
}

// flatKeys are the older keys that name a tool's view outside _meta.ui:
// hosts from before MCP Apps settled on _meta.ui.resourceUri read
// "ui/resourceUri", and ChatGPT's Apps SDK reads "openai/outputTemplate".
var flatKeys = []string{"ui/resourceUri", "openai/outputTemplate"}

// Link puts into a tool's _meta the link to its view at uri: _meta.ui
// (resourceUri, and visibility when set) and "ui/resourceUri"; with openAI
// also "openai/outputTemplate".
func Link(meta map[string]any, uri string, visibility []string, openAI bool) {
	ui := map[string]any{"resourceUri": uri}
	if len(visibility) > 0 {
		ui["visibility"] = visibility
	}
	meta["ui"] = ui
	meta[flatKeys[0]] = uri
	if openAI {
		meta[flatKeys[1]] = uri
	}
}

// Relink replaces every view link in a tool's _meta by what swap returns
// for it.
func Relink(meta map[string]any, swap func(uri string) string) {
	if ui, ok := meta["ui"].(map[string]any); ok {
		if s, ok := ui["resourceUri"].(string); ok {
			ui["resourceUri"] = swap(s)
		}
	}
	for _, k := range flatKeys {
		if s, ok := meta[k].(string); ok {
			meta[k] = swap(s)
		}
	}
}
