// The test host page: a minimal MCP Apps host around the inspector's
// ViewHost (the official host-side bridge, AppBridge from
// @modelcontextprotocol/ext-apps, with the inspector's host presets) and the
// official TypeScript MCP client. It connects to the MCP server at /mcp on
// its own origin, has ViewHost read the view linked to the tool under test
// and render it in an iframe with sandbox="allow-scripts", calls the tool
// and hands the view its result, so a view is tested under what mcpgen dev
// shows. Everything it sees is logged in window.__mcpgenHost for the test
// to read. Like the inspector, it holds the view's iframe in the element
// carrying data-app-status ("loading", then "ready" once the view has its
// result or its cancellation, or "error" with data-app-error), which is
// what internal/browser waits on and screenshots.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { presets, type Emulation, type HostName } from "../inspector/app/src/presets";
import { ViewHost } from "../inspector/app/src/viewhost";

type Event = { kind: string; data?: unknown; at: number };
const host = { events: [] as Event[], error: "" };
(window as any).__mcpgenHost = host;
const t0 = performance.now();
function log(kind: string, data?: unknown) {
  host.events.push({ kind, data, at: Math.round(performance.now() - t0) });
}
const container = document.querySelector<HTMLElement>("[data-app-status]")!;
function fail(e: unknown) {
  host.error = String((e as Error)?.stack ?? e);
  log("error", String(e));
  container.setAttribute("data-app-error", String(e));
  container.setAttribute("data-app-status", "error");
}

async function main() {
  const q = new URLSearchParams(location.search);
  const toolName = q.get("tool") ?? "";
  const args = JSON.parse(q.get("args") ?? "{}");
  const preset = presets[(q.get("host") ?? "claude") as HostName] ?? presets.claude;
  let emulation: Emulation = { host: preset.name, theme: (q.get("theme") ?? "light") as "light" | "dark", mode: "inline", width: "desktop", locale: "en-US" };

  const client = new Client({ name: "mcpgen-browsertest-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  log("client-connected", client.getServerVersion());

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`tool ${toolName} not listed; tools: ${tools.map((t) => t.name).join(", ")}`);
  const meta = (tool._meta ?? {}) as any;
  const uri: string | undefined = meta.ui?.resourceUri ?? meta["ui/resourceUri"];
  if (!uri) throw new Error(`tool ${toolName} has no _meta.ui.resourceUri`);

  const view: ViewHost = new ViewHost(container, client, null, () => emulation, {
    status(s, error) {
      if (s === "error") return fail(new Error(error));
      container.setAttribute("data-app-status", s);
    },
    size(height, width) {
      log("size-changed", { height, width });
      const iframe = container.querySelector("iframe");
      if (iframe && height) iframe.style.height = `${height}px`;
    },
    displayMode(mode) {
      emulation = { ...emulation, mode };
      view.update();
    },
    hostEvent(kind, data) {
      log(kind === "log" ? "logging" : kind, data);
    },
    meta() {},
    resource(content) {
      log("resource", { uri, mimeType: content.mimeType, meta: content._meta ?? null, bytes: content.text?.length ?? 0 });
    },
    initialized(app, capabilities) {
      log("initialized", { app, capabilities });
    },
  }, { width: 560, maxHeight: 800 });
  // Actions the test triggers in the middle of a scenario.
  (window as any).__mcpgenHostActions = {
    theme(theme: "light" | "dark") {
      emulation = { ...emulation, theme };
      view.update();
      log("host-context-changed", { theme });
    },
    async teardown() {
      log("teardown", await view.teardown());
    },
  };

  const partial = q.get("partial");
  const cancel = q.get("cancel");
  log("view-loading", { uri });
  await view.load({ tool, uri, input: args, partial: partial ? JSON.parse(partial) : undefined, cancel: cancel ?? undefined });
  if (cancel !== null) return;
  const result = await client.callTool({ name: toolName, arguments: args });
  log("tool-result", result);
  await view.setResult(result);
}

main().catch(fail);
