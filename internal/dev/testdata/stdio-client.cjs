// A host that starts its server itself, as Claude Desktop does: the official
// TypeScript SDK's stdio client runs `mcpgen dev --stdio PROJECT`, and in
// one session lists, reads a view, calls a tool, then edits the view and
// the handler on disk and waits for the list-changed notifications and the
// new content. It prints one JSON summary line; the Go test judges it.
//
// Environment: NODE_MODULES (where @modelcontextprotocol/sdk is), MCPGEN
// (the mcpgen binary), PROJECT (the connector directory).
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const req = createRequire(path.join(process.env.NODE_MODULES, "noop.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
const T = req("@modelcontextprotocol/sdk/types.js");

const project = process.env.PROJECT;
const timeoutMs = 120000;

function edit(file, from, to) {
  const p = path.join(project, file);
  const s = fs.readFileSync(p, "utf8");
  if (!s.includes(from)) throw new Error(`${file} does not contain ${from}`);
  fs.writeFileSync(p, s.replace(from, to));
}

// Notification counters, and waiters for the next one of a kind.
const seen = { tools: 0, resources: 0 };
const waiters = { tools: [], resources: [] };
function notify(kind) {
  seen[kind]++;
  for (const w of waiters[kind].splice(0)) w();
}
function next(kind, what) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${kind} list_changed after ${what}`)), timeoutMs);
    waiters[kind].push(() => { clearTimeout(t); resolve(); });
  });
}

function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

async function main() {
  const transport = new StdioClientTransport({
    command: process.env.MCPGEN,
    args: ["dev", "--stdio", project],
    cwd: project,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (b) => { stderr += b; });

  const errors = [];
  const client = new Client({ name: "ts-stdio-host", version: "1.0.0" });
  client.onerror = (e) => errors.push(String(e && e.message || e));
  client.setNotificationHandler(T.ToolListChangedNotificationSchema, () => notify("tools"));
  client.setNotificationHandler(T.ResourceListChangedNotificationSchema, () => notify("resources"));
  // Every byte mcpgen dev writes to stdout, to check it is all JSON-RPC.
  let stdout = "";
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const proc = transport._process;
    if (!proc || !proc.stdout) throw new Error("cannot observe the server's stdout");
    proc.stdout.on("data", (b) => { stdout += b; });
  };
  await client.connect(transport);

  const out = { errors };
  const hello = async () => (await client.listTools()).tools.find((t) => t.name === "hello");

  // Straight after start-up: the front holds the list until the first build.
  const h1 = await hello();
  if (!h1) throw new Error("no hello tool in the first tools/list");
  out.uri1 = h1._meta.ui.resourceUri;
  out.view1 = (await client.readResource({ uri: out.uri1 })).contents[0].text.includes("card v1");
  out.call1 = text(await client.callTool({ name: "hello", arguments: { name: "ada" } }));

  // A view edit: resources/list_changed, a new view URI, the new content.
  const viewChanged = next("resources", "the view edit");
  edit("ui/card.tsx", "card v1", "card v2");
  await viewChanged;
  const h2 = await hello();
  out.uri2 = h2._meta.ui.resourceUri;
  out.view2 = (await client.readResource({ uri: out.uri2 })).contents[0].text.includes("card v2");

  // A handler edit: a new description and result; tools/list_changed.
  const toolsBefore = seen.tools;
  edit("hello.go", "// Hello greets someone", "// Hello greets someone warmly");
  edit("hello.go", `" v1"`, `" v2"`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await next("tools", "the handler edit");
    const h3 = await hello();
    if (h3 && h3.description.includes("warmly")) {
      out.description = h3.description;
      break;
    }
    if (Date.now() > deadline) throw new Error("the handler edit never showed");
  }
  out.toolsNotified = seen.tools - toolsBefore;
  out.call2 = text(await client.callTool({ name: "hello", arguments: { name: "ada" } }));
  out.resourcesNotified = seen.resources;

  await client.close();
  // Give the last stdout chunks a moment to arrive before judging them.
  await new Promise((r) => setTimeout(r, 100));
  out.stdout = stdout;
  out.stderr = stderr;
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => {
  process.stderr.write("stdio-client: " + (e && e.stack || e) + "\n");
  process.exit(1);
});
