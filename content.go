package mcpgen

import (
	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Contents is a tool result made of several content blocks; return it from
// a tool to send them as they are:
//
//	return mcpgen.Contents{mcpgen.Text("Here it is:"), mcpgen.Image(png, "image/png")}, nil
type Contents = connector.Contents

// Text returns a text content block.
func Text(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }

// Image returns an image content block; data is the raw image (it is sent
// base64-encoded) and mimeType such as "image/png".
func Image(data []byte, mimeType string) *mcp.ImageContent {
	return &mcp.ImageContent{Data: data, MIMEType: mimeType}
}

// Audio returns an audio content block; data is the raw audio and mimeType
// such as "audio/wav".
func Audio(data []byte, mimeType string) *mcp.AudioContent {
	return &mcp.AudioContent{Data: data, MIMEType: mimeType}
}

// EmbeddedText returns a resource embedded in a result, with text content.
func EmbeddedText(uri, mimeType, text string) *mcp.EmbeddedResource {
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: mimeType, Text: text}}
}

// EmbeddedBlob returns a resource embedded in a result, with binary content
// (sent base64-encoded).
func EmbeddedBlob(uri, mimeType string, data []byte) *mcp.EmbeddedResource {
	if data == nil {
		data = []byte{}
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: mimeType, Blob: data}}
}

// Link returns a link to a resource the client can read later. Set Title,
// Description or MIMEType on the result as needed:
//
//	l := mcpgen.Link("file:///report.pdf", "report.pdf")
//	l.MIMEType = "application/pdf"
func Link(uri, name string) *mcp.ResourceLink {
	return &mcp.ResourceLink{URI: uri, Name: name}
}
