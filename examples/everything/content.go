package main

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Returns a short fixed text.
//
//mcpgen:tool readonly title="Simple text"
func TestSimpleText() (string, error) {
	return "This is a simple text response for testing.", nil
}

// Returns a one-pixel red PNG image.
//
//mcpgen:tool readonly title="Image content"
func TestImageContent() (mcp.Content, error) {
	return mcpgen.Image(redPixelPNG(), "image/png"), nil
}

// Returns a short silent WAV recording.
//
//mcpgen:tool readonly title="Audio content"
func TestAudioContent() (mcp.Content, error) {
	return mcpgen.Audio(silentWAV(), "audio/wav"), nil
}

// Returns a text resource embedded in the result.
//
//mcpgen:tool readonly title="Embedded resource"
func TestEmbeddedResource() (mcp.Content, error) {
	return mcpgen.EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content."), nil
}

// Returns text, an image and an embedded JSON
// resource in one result.
//
//mcpgen:tool readonly title="Mixed content"
func TestMultipleContentTypes() (mcpgen.Contents, error) {
	return mcpgen.Contents{
		mcpgen.Text("Multiple content types test:"),
		mcpgen.Image(redPixelPNG(), "image/png"),
		mcpgen.EmbeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	}, nil
}

// Always fails, to show how an error reaches the model.
//
//mcpgen:tool readonly title="Error handling"
func TestErrorHandling(ctx context.Context) error {
	return errors.New("This tool intentionally returns an error for testing")
}
