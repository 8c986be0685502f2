// A 2026-07-28 client and a 2025-11-25 client of the official TypeScript
// SDK (v2) use one connector at the same time. Usage:
//   node botheras.mjs MODULES_DIR URL
// It prints one JSON object with what each client saw.
const [modules, url] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport } = await import(`${modules}/@modelcontextprotocol/client/dist/index.mjs`);

const watched = "test://watched-resource";
const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function open(name, versionNegotiation) {
  const seen = { updated: [], elicited: 0 };
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation });
  client.setRequestHandler("elicitation/create", async () => {
    seen.elicited++;
    return { action: "accept", content: { username: name, email: `${name}@example.com` } };
  });
  client.setNotificationHandler("notifications/resources/updated", (n) => seen.updated.push(n.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, seen };
}

async function exercise({ client, seen }) {
  const tools = await client.listTools();
  const simple = await client.callTool({ name: "test_simple_text", arguments: {} });
  const read = await client.readResource({ uri: "test://static-text" });
  const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
  const asked = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
  return {
    version: client.getNegotiatedProtocolVersion(),
    server: client.getServerVersion()?.name,
    tools: tools.tools.length,
    simple: text(simple.content),
    resource: read.contents[0]?.text,
    prompt: text([prompt.messages[0]?.content]),
    elicitation: text(asked.content),
    elicited: seen.elicited,
  };
}

const modern = await open("modern", { mode: { pin: "2026-07-28" } });
const legacy = await open("legacy", { mode: "legacy" });
const [m, l] = await Promise.all([exercise(modern), exercise(legacy)]);

// One change notifies both: a subscriptions/listen stream and a session's
// resources/subscribe.
const sub = await modern.client.listen({ resourceSubscriptions: [watched] });
await legacy.client.subscribeResource({ uri: watched });
for (let i = 0; i < 50 && (modern.seen.updated.length === 0 || legacy.seen.updated.length === 0); i++) {
  await legacy.client.callTool({ name: "update_watched_resource", arguments: {} });
  await new Promise((r) => setTimeout(r, 100));
}
m.updated = modern.seen.updated[0] ?? null;
l.updated = legacy.seen.updated[0] ?? null;
await sub.close();
await modern.client.close();
await legacy.client.close();
console.log(JSON.stringify({ modern: m, legacy: l }));
