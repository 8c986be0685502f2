package main

import (
	"fmt"

	"github.com/mcpgen/mcpgen"
)

// A prompt without arguments.
//
//mcpgen:prompt
func TestSimplePrompt() (string, error) {
	return "This is a simple prompt for testing.", nil
}

// PromptArgs are the arguments of test_prompt_with_arguments.
type PromptArgs struct {
	Arg1 string `json:"arg1"` // First test argument
	Arg2 string `json:"arg2"` // Second test argument
}

// A prompt with two arguments.
//
//mcpgen:prompt
func TestPromptWithArguments(in PromptArgs) (string, error) {
	return fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", in.Arg1, in.Arg2), nil
}

// CompleteArg1 proposes values for arg1 of test_prompt_with_arguments.
//
//mcpgen:complete prompt=test_prompt_with_arguments arg=arg1
func CompleteArg1(partial string) ([]string, error) {
	return withPrefix(partial, "paris", "park", "party", "test", "testValue1"), nil
}

// EmbedArgs are the arguments of test_prompt_with_embedded_resource.
type EmbedArgs struct {
	ResourceURI string `json:"resourceUri"` // URI of the resource to embed
}

// A prompt that embeds a resource.
//
//mcpgen:prompt
func TestPromptWithEmbeddedResource(in EmbedArgs) (mcpgen.Messages, error) {
	return mcpgen.Messages{
		mcpgen.UserMessage(mcpgen.EmbeddedText(in.ResourceURI, "text/plain", "Embedded resource content for testing.")),
		mcpgen.UserText("Please process the embedded resource above."),
	}, nil
}

// A prompt that shows an image.
//
//mcpgen:prompt
func TestPromptWithImage() (mcpgen.Messages, error) {
	return mcpgen.Messages{
		mcpgen.UserMessage(mcpgen.Image(redPixelPNG(), "image/png")),
		mcpgen.UserText("Please analyze the image above."),
	}, nil
}
