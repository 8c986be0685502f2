// Package authe2e holds the end-to-end tests of mcpgen's OAuth support: a
// connector built with the real mcpgen command, and mcpgen dev, protected by
// a real authorization server (oidc-provider, from npm) and called by real
// clients (the official TypeScript SDK through the whole authorization
// flow, and the Go SDK with tokens minted for each failure case).
package authe2e
