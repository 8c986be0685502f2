// Package mcpgen is what a connector's own code imports: content helpers
// for tool results (Text, Image, Audio, EmbeddedText, Link, ...), prompt
// message helpers, and context helpers that talk back to the calling client
// during a request (Log, Progress, Sample, Elicit, ResourceUpdated).
//
// Handlers are plain Go functions marked with //mcpgen: directives; the
// mcpgen command generates their registration, and package
// github.com/mcpgen/mcpgen/connector serves them on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). The content values are go-sdk
// types, so anything the SDK offers can be used directly too.
package mcpgen

import "github.com/mcpgen/mcpgen/connector"

// ErrNotFound, returned (or wrapped) by a resource handler, answers
// resources/read with "resource not found" (-32002).
var ErrNotFound = connector.ErrNotFound
