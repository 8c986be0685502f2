// Package inspector serves the mcpgen inspector: a web app that is a real
// MCP client of a connector and a real MCP Apps host for its views, so a
// developer (or a test) sees and drives every tool, resource, prompt and
// view without a chat host. It turns an MCP endpoint and a project directory
// into two HTTP origins: the app (one self-contained index.html, committed
// and embedded, plus a few JSON and event-stream routes under /_mcpgen/) and
// a view sandbox on a second port that serves each view document with the
// Content-Security-Policy its resource declares.
//
// # Go API
//
// mcpgen dev mounts the app beside its own /mcp endpoint; `mcpgen test` and
// tests serve it in-process around any MCP handler:
//
//	srv, err := inspector.New(inspector.Options{
//		MCP:        handler,    // served at /mcp on the app's origin (or MCPURL: proxied there)
//		ProjectDir: dir,        // fixtures/TOOL/NAME.json are listed from here
//	})
//	defer srv.Close()           // stops the sandbox listener
//	ts := httptest.NewServer(srv) // srv is the app origin's http.Handler
//	// open ts.URL + "/?tool=hello&input=%7B%22name%22%3A%22Ada%22%7D&call=1&host=claude&theme=dark"
//
// [Server.SetStatus] publishes the build's diagnostics; the app shows them
// as an overlay until a status without errors arrives.
//
// # Routes
//
// On the app's origin: / (the app, at any path outside /mcp and /_mcpgen/),
// /mcp (when Options.MCP or MCPURL is set), and
//
//	GET  /_mcpgen/config     {"name", "mcp", "sandboxPort"}
//	GET  /_mcpgen/fixtures   {"fixtures": [Fixture...], "diagnostics": [Diagnostic...]}
//	GET  /_mcpgen/status     the current Status: the build's diagnostics
//	GET  /_mcpgen/events     the Status as server-sent events ("status"), now and on every change
//	POST /_mcpgen/views      {"html", "csp"} → {"path"}: a view document for the sandbox
//	GET  /_mcpgen/oauth/callback  the app again: the redirect URI of its OAuth sign-in
//
// On the sandbox origin: GET /view/{id}, the stored document with its CSP.
//
// # Automation contract
//
// External checks rely on these exactly:
//
//   - Deep links: /?tool=NAME&input=<URL-encoded JSON>&call=1&host=claude|chatgpt
//     &theme=light|dark&mode=inline|fullscreen|pip, and &fixture=NAME (render the
//     tool's fixture NAME without calling the handler; implies the fixture's input).
//     Optional: &width=desktop|tablet|mobile, &locale=BCP47.
//   - The element holding the view carries data-app-status="loading|ready|error".
//     It is "ready" once the view has completed the ui/initialize handshake and
//     received the tool's input and result; "error" when the view could not be
//     read or loaded (the reason is in its data-app-error attribute).
//   - Each tool in the list is a button whose accessible name is the tool's name.
//   - The call button's accessible name is "Call".
//   - Each form field's accessible name is its JSON property name.
//   - window.__mcpgenInspector exposes {status, protocol} for tests: status
//     mirrors data-app-status and protocol is the protocol panel's log; also
//     task, the task the tool runner follows ({id, status, message} or null).
//   - Tasks: a task tool's "run as a task" box is a checkbox named "Run as a
//     task" (&task=0 in a deep link turns it off); the task being followed
//     is [data-testid="task"] with data-task-status="working|input_required|
//     completed|failed|cancelled" and data-task-id, its status message is
//     [data-testid="task-message"], and its cancel button is named "Cancel
//     task".
//   - Sign-in: on a 401 the panel's token box is labelled "bearer token" and
//     its button is named "Sign in"; when the 401 names resource_metadata,
//     a button named "Sign in with OAuth" starts authorization code with
//     PKCE, whose redirect URI is /_mcpgen/oauth/callback on the app's
//     origin; a failure to start or finish it is [data-testid="oauth-error"].
//     The access token is sessionStorage "mcpgen.inspector.token" (pasted
//     or from OAuth); "Sign out" forgets it.
//
// # Fixtures
//
// fixtures/TOOL/NAME.json holds one rendering of TOOL's view:
//
//	{
//	  "input":  {...},            // the tool's arguments
//	  "result": {...},            // a CallToolResult, or just its structuredContent
//	  "calls":  {"TOOL2": {...}}  // optional canned results for tools the view calls
//	}
//
// A result is a CallToolResult when it is an object with a "content" array or a
// "structuredContent" member; any other JSON value is structuredContent, and
// the inspector adds its JSON text as content. [LoadFixtures] reads and
// normalizes them, with diagnostics at file:line:col for malformed files.
package inspector
