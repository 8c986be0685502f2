package connector_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
)

// A value that breaks its field's format is refused with isError naming the
// field, the format and an example, before the handler runs; a good value
// reaches it. (internal/argcheck checks every format.)
func TestCallFormats(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	app := &connector.App{Name: "formats", Version: "1.0.0", Tools: []connector.Tool{{
		Name: "check", Description: "Checks formats.", Result: connector.ResultText,
		InputSchema: `{"type":"object","properties":{"days":{"type":"array","items":{"$ref":"#/$defs/Day"}}},` +
			`"additionalProperties":false,"$defs":{"Day":{"type":"string","format":"date"}}}`,
		Annotations: connector.Annotations{ReadOnly: true},
		Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
			calls.Add(1)
			return "ok", nil
		},
	}}}
	_, cs := connect(t, app, nil)
	if res := call(t, cs, "check", map[string]any{"days": []string{"2024-02-29"}}); res.IsError || calls.Load() != 1 {
		t.Fatalf("a good value refused: %s", textOf(t, res))
	}
	res := call(t, cs, "check", map[string]any{"days": []string{"2025-01-31", "yesterday"}})
	want := `invalid arguments: "days[]": must be a date (format date, such as 2025-01-31), not "yesterday"`
	if got := textOf(t, res); !res.IsError || got != want {
		t.Errorf("isError=%v %q\nwant %q", res.IsError, got, want)
	}
	if calls.Load() != 1 {
		t.Error("a bad value reached the handler")
	}
}
