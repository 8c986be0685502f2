package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/mcpgen/mcpgen"
)

// Whoami returns the subject of the caller's access token.
//
//mcpgen:tool readonly
func Whoami(ctx context.Context) (string, error) {
	id := mcpgen.Auth(ctx)
	if id == nil {
		return "", errors.New("no caller: the connector runs without auth")
	}
	return id.Subject, nil
}

// WriteEntryInput is one journal entry.
type WriteEntryInput struct {
	Text string `json:"text"`
}

// WriteEntry adds an entry to the caller's journal.
//
//mcpgen:tool additive idempotent scope="notes:write"
func WriteEntry(ctx context.Context, in WriteEntryInput) (string, error) {
	id := mcpgen.Auth(ctx)
	return fmt.Sprintf("%s wrote %q with %v", id.Subject, in.Text, id.Scopes), nil
}

// Ping answers pong, at most twice an hour per caller.
//
//mcpgen:tool readonly ratelimit=2/1h
func Ping(ctx context.Context) (string, error) { return "pong", nil }

// The caller's private journal.
//
//mcpgen:resource uri=journal://private mime=text/plain scope="notes:write"
func PrivateJournal(ctx context.Context) (string, error) {
	return "PRIVATE-JOURNAL of " + mcpgen.Auth(ctx).Subject, nil
}

// A prompt to review the caller's private journal.
//
//mcpgen:prompt scope="notes:write"
func ReviewJournal(ctx context.Context) (string, error) {
	return "PRIVATE-REVIEW for " + mcpgen.Auth(ctx).Subject, nil
}

// UpstreamUser calls the upstream identity provider as the caller, with the
// upstream access token the connector keeps for them (--auth-upstream),
// and returns who the provider's userinfo endpoint says they are.
//
//mcpgen:tool readonly
func UpstreamUser(ctx context.Context) (string, error) {
	id := mcpgen.Auth(ctx)
	if id == nil {
		return "", errors.New("no caller: the connector runs without auth")
	}
	tok, err := id.UpstreamToken(ctx)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, os.Getenv("UPSTREAM_USERINFO"), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct{ Sub string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("userinfo answered %s: %v", resp.Status, err)
	}
	return "upstream says " + v.Sub, nil
}
