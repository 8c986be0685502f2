package conformance

import "testing"

// ScenariosNext are the 65 server scenarios of @modelcontextprotocol/conformance
// 0.2.0-alpha.12 (`conformance server --suite all`, the 2026-07-28
// revision), in the suite's order. The suite is installed beside 0.1.16
// under the npm alias conformance-next (internal/testenv/npm/package.json).
var ScenariosNext = []string{
	"server-initialize", "server-session-lifecycle", "server-stateless", "logging-set-level", "ping",
	"completion-complete", "tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
	"tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging", "tools-call-error",
	"tools-call-with-progress", "tools-call-sampling", "tools-call-elicitation", "json-schema-2020-12",
	"elicitation-sep1034-defaults", "server-sse-polling", "server-sse-multiple-streams",
	"elicitation-sep1330-enums", "resources-list", "resources-read-text", "resources-read-binary",
	"resources-templates-read", "resources-subscribe", "resources-unsubscribe", "sep-2164-resource-not-found",
	"sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest", "prompts-list",
	"prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image",
	"dns-rebinding-protection", "caching", "http-header-validation", "http-custom-header-server-validation",
	"tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
	"tasks-mrtr-input", "tasks-request-headers", "tasks-dispatch-and-envelope", "tasks-status-notifications",
	"tasks-required-task-error", "tasks-mrtr-composition",
	"input-required-result-basic-elicitation", "input-required-result-basic-sampling",
	"input-required-result-basic-list-roots", "input-required-result-request-state",
	"input-required-result-multiple-input-requests", "input-required-result-multi-round",
	"input-required-result-missing-input-response", "input-required-result-non-tool-request",
	"input-required-result-result-type", "input-required-result-unsupported-methods",
	"input-required-result-tampered-state", "input-required-result-capability-check",
	"input-required-result-ignore-extra-params", "input-required-result-validate-input",
}

// failingNext are the scenarios of ScenariosNext examples/everything does not
// pass yet, and why. TestConformanceNext fails when one of them passes:
// take it off this list (and docs/conformance.md) then.
var failingNext = map[string]string{
	"tasks-status-notifications": "the suite has not rewritten it for subscriptions/listen yet (where mcpgen sends notifications/tasks): it checks nothing",
}

// TestConformanceNext runs every server scenario of the 2026-07-28
// conformance suite against examples/everything: each passes with no
// failure nor warning, except the scenarios of failingNext, which fail.
func TestConformanceNext(t *testing.T) {
	runSuite(t, "conformance-next", ScenariosNext, failingNext)
}
