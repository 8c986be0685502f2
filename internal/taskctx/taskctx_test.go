package taskctx

import (
	"context"
	"testing"
)

func TestProgress(t *testing.T) {
	if Progress(context.Background(), "ignored") {
		t.Error("Progress outside a task reported a task")
	}
	var got []string
	ctx := WithProgress(context.Background(), func(msg string) { got = append(got, msg) })
	if !Progress(ctx, "1 of 2") || len(got) != 1 || got[0] != "1 of 2" {
		t.Errorf("Progress in a task recorded %q", got)
	}
}
