// 2025-11-25 session clients of the official TypeScript SDK (v2) use
// replicas behind a round-robin load balancer. Usage:
//   node tsreplicas_sessions.mjs MODULES_DIR URL N
// N clients each connect and call a tool; one of them answers N
// elicitations and subscribes to test://watched-resource while another
// updates it N times. It prints one JSON object with the counts.
const [modules, url, n] = process.argv.slice(2);
const N = Number(n);
const { Client, StreamableHTTPClientTransport } = await import(`${modules}/@modelcontextprotocol/client/dist/index.mjs`);

const watched = "test://watched-resource";
const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function open(name) {
  const seen = { updated: 0, elicited: 0 };
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "legacy" } });
  client.setRequestHandler("elicitation/create", async () => {
    seen.elicited++;
    return { action: "accept", content: { username: name, email: `${name}@example.com` } };
  });
  client.setNotificationHandler("notifications/resources/updated", (m) => {
    if (m.params.uri === watched) seen.updated++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, seen };
}

const failures = [];
let connected = 0;
let version = null;
for (let i = 0; i < N; i++) {
  try {
    const c = await open(`c${i}`);
    version = c.client.getNegotiatedProtocolVersion();
    const r = await c.client.callTool({ name: "test_simple_text", arguments: {} });
    if (!r.isError) connected++;
    await c.client.close();
  } catch (e) {
    failures.push(String(e));
  }
}
const a = await open("listener");
const b = await open("updater");
let answered = 0;
for (let i = 0; i < N; i++) {
  try {
    const r = await a.client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } }, undefined, { timeout: 10000 });
    if (!r.isError && text(r.content).includes("listener@example.com")) answered++;
    else failures.push(text(r.content));
  } catch (e) {
    failures.push(String(e));
  }
}
await a.client.subscribeResource({ uri: watched });
// The subscription reaches the replica holding the GET stream over the
// store's bus: update until the first notification, then count N.
for (let i = 0; i < 100 && a.seen.updated === 0; i++) {
  await b.client.callTool({ name: "update_watched_resource", arguments: {} });
  await new Promise((r) => setTimeout(r, 100));
}
await new Promise((r) => setTimeout(r, 300));
a.seen.updated = 0;
for (let i = 0; i < N; i++) {
  await b.client.callTool({ name: "update_watched_resource", arguments: {} });
}
for (let i = 0; i < 100 && a.seen.updated < N; i++) {
  await new Promise((r) => setTimeout(r, 100));
}
await a.client.close();
await b.client.close();
console.log(JSON.stringify({ version, connected, answered, elicited: a.seen.elicited, updated: a.seen.updated, failures: failures.slice(0, 3) }));
