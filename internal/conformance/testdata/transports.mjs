// The official TypeScript SDK's SSEClientTransport (the HTTP+SSE transport
// of 2024-11-05) and WebSocketClientTransport use one connector. Usage:
//   node transports.mjs MODULES_DIR BASE_URL
// It prints one JSON object with what each client saw.
const [modules, base] = process.argv.slice(2);
const sdk = `${modules}/@modelcontextprotocol/sdk/dist/esm`;
const { Client } = await import(`${sdk}/client/index.js`);
const { SSEClientTransport } = await import(`${sdk}/client/sse.js`);
const { WebSocketClientTransport } = await import(`${sdk}/client/websocket.js`);
const { ElicitRequestSchema, ResourceUpdatedNotificationSchema } = await import(`${sdk}/types.js`);

const watched = "test://watched-resource";
const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function exercise(name, transport) {
  const seen = { updated: [], elicited: 0, progress: [] };
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    seen.elicited++;
    return { action: "accept", content: { username: name, email: `${name}@example.com` } };
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => seen.updated.push(n.params.uri));
  await client.connect(transport);
  const tools = await client.listTools();
  const progressed = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
    onprogress: (p) => seen.progress.push(p.progress),
  });
  const asked = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  await client.subscribeResource({ uri: watched });
  for (let i = 0; i < 50 && seen.updated.length === 0; i++) {
    await client.callTool({ name: "update_watched_resource", arguments: {} });
    await new Promise((r) => setTimeout(r, 50));
  }
  const report = {
    server: client.getServerVersion()?.name,
    tools: tools.tools.length,
    progressResult: text(progressed.content),
    progress: seen.progress,
    elicitation: text(asked.content),
    elicited: seen.elicited,
    updated: seen.updated[0] ?? null,
  };
  await client.close();
  return report;
}

const ws = base.replace(/^http/, "ws");
const [sse, websocket] = await Promise.all([
  exercise("sse", new SSEClientTransport(new URL(`${base}/sse`))),
  exercise("ws", new WebSocketClientTransport(new URL(`${ws}/ws`))),
]);
console.log(JSON.stringify({ sse, ws: websocket }));
