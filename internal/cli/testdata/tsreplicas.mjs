// Two 2026-07-28 clients of the official TypeScript SDK (v2) use replicas
// behind a round-robin load balancer. Usage:
//   node tsreplicas.mjs MODULES_DIR URL N
// The first answers N elicitations (each a multi-round-trip call whose
// rounds may land on different replicas) and listens to
// test://watched-resource while the second updates it N times. It prints
// one JSON object with the counts.
const [modules, url, n] = process.argv.slice(2);
const N = Number(n);
const { Client, StreamableHTTPClientTransport } = await import(`${modules}/@modelcontextprotocol/client/dist/index.mjs`);

const watched = "test://watched-resource";
const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function open(name) {
  const seen = { updated: 0, elicited: 0 };
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
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

const a = await open("listener");
const b = await open("updater");
const version = a.client.getNegotiatedProtocolVersion();
let answered = 0;
const failures = [];
for (let i = 0; i < N; i++) {
  try {
    const r = await a.client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    if (!r.isError && text(r.content).includes("listener@example.com")) answered++;
    else failures.push(text(r.content));
  } catch (e) {
    failures.push(String(e));
  }
}
const sub = await a.client.listen({ resourceSubscriptions: [watched] });
for (let i = 0; i < N; i++) {
  await b.client.callTool({ name: "update_watched_resource", arguments: {} });
}
for (let i = 0; i < 100 && a.seen.updated < N; i++) {
  await new Promise((r) => setTimeout(r, 100));
}
await sub.close();
await a.client.close();
await b.client.close();
console.log(JSON.stringify({ version, answered, elicited: a.seen.elicited, updated: a.seen.updated, failures: failures.slice(0, 3) }));
