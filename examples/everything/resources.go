package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mcpgen/mcpgen"
)

// A fixed plain-text resource.
//
//mcpgen:resource uri=test://static-text mime=text/plain
func StaticText() (string, error) {
	return "This is the content of the static text resource.", nil
}

// A fixed binary resource: a one-pixel PNG image.
//
//mcpgen:resource uri=test://static-binary mime=image/png
func StaticBinary() ([]byte, error) {
	return redPixelPNG(), nil
}

// TemplateVars are the variables of the test://template/{id}/data template.
type TemplateVars struct {
	ID string `json:"id"` // The record to read.
}

// A JSON record for any id.
//
//mcpgen:resource uri=test://template/{id}/data mime=application/json
func TemplateData(v TemplateVars) (string, error) {
	b, err := json.Marshal(map[string]any{"id": v.ID, "templateTest": true, "data": "Data for ID: " + v.ID})
	return string(b), err
}

// CompleteTemplateID proposes record ids for test://template/{id}/data.
//
//mcpgen:complete resource=test://template/{id}/data arg=id
func CompleteTemplateID(partial string) ([]string, error) {
	return withPrefix(partial, "1", "12", "123", "1234"), nil
}

// watched counts the changes of test://watched-resource.
var watched atomic.Int64

// A resource that changes whenever update_watched_resource
// runs; clients can subscribe to it.
//
//mcpgen:resource uri=test://watched-resource mime=text/plain
func WatchedResource() (string, error) {
	return fmt.Sprintf("Watched resource, version %d", watched.Load()), nil
}

// Changes test://watched-resource and notifies its
// subscribers.
//
//mcpgen:tool destructive idempotent title="Update the watched resource"
func UpdateWatchedResource(ctx context.Context) (string, error) {
	n := watched.Add(1)
	if err := mcpgen.ResourceUpdated(ctx, "test://watched-resource"); err != nil {
		return "", err
	}
	return fmt.Sprintf("test://watched-resource is now at version %d", n), nil
}

// withPrefix returns the values that start with prefix.
func withPrefix(prefix string, values ...string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}
