package mcpgen

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Messages is a prompt result: the conversation the prompt expands to.
type Messages = []*mcp.PromptMessage

// UserText returns a user message holding text.
func UserText(s string) *mcp.PromptMessage { return UserMessage(Text(s)) }

// AssistantText returns an assistant message holding text.
func AssistantText(s string) *mcp.PromptMessage { return AssistantMessage(Text(s)) }

// UserMessage returns a user message holding any content block (text,
// image, audio, embedded resource).
func UserMessage(c mcp.Content) *mcp.PromptMessage {
	return &mcp.PromptMessage{Role: "user", Content: c}
}

// AssistantMessage returns an assistant message holding any content block.
func AssistantMessage(c mcp.Content) *mcp.PromptMessage {
	return &mcp.PromptMessage{Role: "assistant", Content: c}
}
