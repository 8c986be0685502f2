// Clients of the official TypeScript SDK configured with "sse" (the
// HTTP+SSE transport of 2024-11-05) and "ws" use replicas behind a
// round-robin load balancer. Usage:
//   node tsreplicas_legacy.mjs MODULES_DIR BASE_URL N
// N clients of each transport, one after the other: tools/list, a call
// with progress, an elicitation, and a resource subscription notified of
// updates that a Streamable HTTP client makes through the same balancer
// (so on any replica). It prints one JSON object with the counts.
const [modules, base, n] = process.argv.slice(2);
const N = Number(n);
const sdk = `${modules}/@modelcontextprotocol/sdk/dist/esm`;
const { Client } = await import(`${sdk}/client/index.js`);
const { SSEClientTransport } = await import(`${sdk}/client/sse.js`);
const { WebSocketClientTransport } = await import(`${sdk}/client/websocket.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
const { ElicitRequestSchema, ResourceUpdatedNotificationSchema } = await import(`${sdk}/types.js`);

const watched = "test://watched-resource";
const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const updater = new Client({ name: "updater", version: "1.0.0" });
await updater.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));

const failures = [];
async function exercise(name, transport) {
  const seen = { updated: 0, elicited: 0, progress: [] };
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    seen.elicited++;
    return { action: "accept", content: { username: name, email: `${name}@example.com` } };
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (m) => {
    if (m.params.uri === watched) seen.updated++;
  });
  const ok = { connected: false, listed: false, progressed: false, elicited: false, notified: false };
  try {
    await client.connect(transport);
    ok.connected = true;
    ok.listed = (await client.listTools()).tools.length >= 14;
    const p = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
      onprogress: (x) => seen.progress.push(x.progress),
      timeout: 15000,
    });
    // The server sends 0, 50 and 100 before the result, in order; the
    // client drops the last notification when it comes in the same read
    // as the result, so only the first is sure to arrive; they come in order.
    ok.progressed = text(p.content) === "Tool with progress executed successfully" && seen.progress.length >= 1 && seen.progress[0] === 0 &&
      seen.progress.every((v, i) => i === 0 || v > seen.progress[i - 1]);
    if (!ok.progressed) failures.push(`${name}: progress ${JSON.stringify(seen.progress)}, result ${text(p.content)}`);
    const e = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } }, undefined, { timeout: 15000 });
    ok.elicited = seen.elicited === 1 && text(e.content).includes(`${name}@example.com`);
    await client.subscribeResource({ uri: watched });
    for (let i = 0; i < 50 && seen.updated === 0; i++) {
      await updater.callTool({ name: "update_watched_resource", arguments: {} });
      await sleep(50);
    }
    ok.notified = seen.updated > 0;
  } catch (err) {
    failures.push(`${name}: ${err}`);
  }
  await client.close().catch(() => {});
  return ok;
}

const count = { sse: {}, ws: {} };
const ws = base.replace(/^http/, "ws");
for (let i = 0; i < N; i++) {
  for (const [kind, make] of [
    ["sse", () => new SSEClientTransport(new URL(`${base}/sse`))],
    ["ws", () => new WebSocketClientTransport(new URL(`${ws}/ws`))],
  ]) {
    const ok = await exercise(`${kind}${i}`, make());
    for (const [k, v] of Object.entries(ok)) count[kind][k] = (count[kind][k] ?? 0) + (v ? 1 : 0);
  }
}
await updater.close();
console.log(JSON.stringify({ ...count, failures: failures.slice(0, 3) }));
