package connector

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetToolEnabled takes a registered tool off tools/list (on false) or puts
// it back (on true), for tools that depend on a feature flag, a licence or
// a backend that comes and goes. A disabled tool is an unknown tool to
// tools/call. Clients are told with notifications/tools/list_changed: on
// their sessions (2025-11-25) and on their subscriptions/listen streams
// (2026-07-28).
func (s *Server) SetToolEnabled(name string, on bool) error {
	t, ok := s.tools[name]
	if !ok {
		return fmt.Errorf("mcpgen: SetToolEnabled: no tool %q", name)
	}
	if t.hidden.Load() == !on {
		return nil
	}
	t.hidden.Store(!on)
	if on {
		s.mcp.AddTool(s.sdkTool(t), t.handle)
	} else {
		s.mcp.RemoveTools(name)
	}
	s.fastPath.ToolsChanged()
	return nil
}

// SetPromptEnabled is SetToolEnabled for a prompt
// (notifications/prompts/list_changed).
func (s *Server) SetPromptEnabled(name string, on bool) error {
	s.mu.Lock()
	p, ok := s.prompts[name]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("mcpgen: SetPromptEnabled: no prompt %q", name)
	}
	if s.hiddenPrompts == nil {
		s.hiddenPrompts = map[string]bool{}
	}
	if s.hiddenPrompts[name] == !on {
		s.mu.Unlock()
		return nil
	}
	s.hiddenPrompts[name] = !on
	s.mu.Unlock()
	if on {
		s.addSDKPrompt(p)
	} else {
		s.mcp.RemovePrompts(name)
	}
	return nil
}

// addSDKPrompt registers p with the go-sdk server.
func (s *Server) addSDKPrompt(p *Prompt) {
	mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	if len(p.Scopes) > 0 {
		mp.Meta = mcp.Meta{authgate.ScopesMetaKey: p.Scopes}
	}
	for _, a := range p.Arguments {
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{
			Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required,
		})
	}
	s.mcp.AddPrompt(mp, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return s.getPrompt(ctx, req, p)
	})
}
