// The test host page: a minimal MCP Apps host built on the official
// host-side bridge (AppBridge from @modelcontextprotocol/ext-apps) and the
// official TypeScript MCP client. It connects to the MCP server at /mcp on
// its own origin, reads the view linked to the tool under test, renders it in
// an iframe with sandbox="allow-scripts", calls the tool and hands the view
// its input and result. Everything it sees is logged in window.__mcpgenHost
// for the test to read. Like the inspector, it holds the view's iframe in
// the element carrying data-app-status ("loading", then "ready" once the
// view has its result or its cancellation, or "error" with data-app-error),
// which is what internal/browser waits on and screenshots.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
// The host presets (theme variables, fonts, sizes, capabilities) are the
// inspector's, so a view is tested under what mcpgen dev shows.
import { hostContext as presetContext, presets, type Emulation, type HostName } from "../inspector/app/src/presets";

type Event = { kind: string; data?: unknown; at: number };
const host = { events: [] as Event[], error: "" };
(window as any).__mcpgenHost = host;
const t0 = performance.now();
function log(kind: string, data?: unknown) {
  host.events.push({ kind, data, at: Math.round(performance.now() - t0) });
}
function status(s: "ready" | "error", error?: string) {
  const el = document.querySelector("[data-app-status]");
  if (error !== undefined) el?.setAttribute("data-app-error", error);
  el?.setAttribute("data-app-status", s);
}
function fail(e: unknown) {
  host.error = String((e as Error)?.stack ?? e);
  log("error", String(e));
  status("error", String(e));
}

async function main() {
  const q = new URLSearchParams(location.search);
  const toolName = q.get("tool") ?? "";
  const args = JSON.parse(q.get("args") ?? "{}");
  const theme = (q.get("theme") ?? "light") as "light" | "dark";
  const hostName = (q.get("host") ?? "claude") as HostName;
  const preset = presets[hostName] ?? presets.claude;
  const emulation = (theme: "light" | "dark"): Emulation => ({ host: preset.name, theme, mode: "inline", width: "desktop", locale: "en-US" });

  const client = new Client({ name: "mcpgen-browsertest-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  log("client-connected", client.getServerVersion());

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`tool ${toolName} not listed; tools: ${tools.map((t) => t.name).join(", ")}`);
  const meta = (tool._meta ?? {}) as any;
  const uri: string | undefined = meta.ui?.resourceUri ?? meta["ui/resourceUri"];
  if (!uri) throw new Error(`tool ${toolName} has no _meta.ui.resourceUri`);
  const read = await client.readResource({ uri });
  const content = read.contents[0] as any;
  log("resource", { uri, mimeType: content.mimeType, meta: content._meta ?? null, bytes: content.text?.length ?? 0 });

  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "view";
  document.getElementById("frame")!.appendChild(iframe);

  let hostContext: any = { ...presetContext(emulation(theme), tool), containerDimensions: { maxHeight: 800, width: 560 } };
  const bridge = new AppBridge(
    client,
    { name: "mcpgen-browsertest", version: "1.0.0" },
    { ...preset.capabilities, openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } },
    { hostContext },
  );
  bridge.onsizechange = (p) => {
    log("size-changed", p);
    if (p.height) iframe.style.height = `${p.height}px`;
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    log("request-display-mode", { mode });
    hostContext = { ...hostContext, displayMode: mode };
    bridge.setHostContext(hostContext);
    return { mode };
  };
  bridge.onopenlink = async (p) => (log("open-link", p), {});
  bridge.onmessage = async (p) => (log("message", p), {});
  bridge.onupdatemodelcontext = async (p) => (log("update-model-context", p), {});
  bridge.onloggingmessage = (p) => log("logging", p);
  const partial = q.get("partial");
  const cancel = q.get("cancel");
  bridge.oninitialized = () => {
    log("initialized", { app: bridge.getAppVersion(), capabilities: bridge.getAppCapabilities() });
    void (async () => {
      if (partial) await bridge.sendToolInputPartial({ arguments: JSON.parse(partial) });
      if (cancel !== null) {
        await bridge.sendToolCancelled({ reason: cancel });
        log("tool-cancelled", { reason: cancel });
        status("ready");
        return;
      }
      await bridge.sendToolInput({ arguments: args });
      const result = await client.callTool({ name: toolName, arguments: args });
      log("tool-result", result);
      await bridge.sendToolResult(result as any);
      status("ready");
    })().catch(fail);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  // Actions the test runner triggers in the middle of a scenario.
  (window as any).__mcpgenHostActions = {
    theme(theme: "light" | "dark") {
      hostContext = { ...hostContext, theme, styles: presetContext(emulation(theme), tool).styles };
      bridge.setHostContext(hostContext);
      log("host-context-changed", { theme });
    },
    async teardown() {
      const res = await bridge.teardownResource({});
      log("teardown", res);
    },
  };
  iframe.srcdoc = content.text;
  log("view-loading", { uri });
}

main().catch(fail);
