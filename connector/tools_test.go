package connector_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
)

// A tool whose input schema cannot be compiled (here a reference to
// nothing) still registers; each call of it is answered with an internal
// error naming the tool, and logged, and the other tools go on.
func TestCallInvalidInputSchema(t *testing.T) {
	var logs syncBuffer
	handler := func(context.Context, json.RawMessage) (any, error) { return "ok", nil }
	app := &connector.App{Name: "bad", Version: "1.0.0", Tools: []connector.Tool{
		{Name: "broken", Result: connector.ResultText, Handler: handler,
			InputSchema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/Nope"}}}`},
		{Name: "fine", Result: connector.ResultText, Handler: handler},
	}}
	_, cs := connect(t, app, nil, connector.WithLogger(quietLogger(&logs)))
	for range 2 {
		res := call(t, cs, "broken", nil)
		if got := textOf(t, res); !res.IsError || !strings.HasPrefix(got, "internal error in tool broken: its input schema is invalid: ") {
			t.Errorf("broken: isError=%v %q", res.IsError, got)
		}
	}
	if n := strings.Count(logs.String(), "tool input schema"); n != 2 {
		t.Errorf("logged %d times, want 2:\n%s", n, logs.String())
	}
	if res := call(t, cs, "fine", nil); res.IsError {
		t.Errorf("fine: %s", textOf(t, res))
	}
}
