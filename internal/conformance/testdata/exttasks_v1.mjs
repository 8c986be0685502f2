// exttasks_v1.mjs drives task tools of a running examples/everything through
// the official tasks client, @modelcontextprotocol/ext-tasks, over MCP
// 2025-11-25 (its "v1" generation, SEP-1686): the official SDK client
// (@modelcontextprotocol/client) opens a session, and the tasks session
// made from it (createTaskSessionFromClient) reads the server's tasks
// capability and the tools' execution.taskSupport itself. It prints one
// JSON line per step.
//
//	node exttasks_v1.mjs MODULES_DIR URL
const [modules, url] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport } =
  await import(`${modules}/@modelcontextprotocol/client/dist/index.mjs`);
const { createTaskSessionFromClient, resultFromTaskOutcome, taskViewFromExecutionEvent } =
  await import(`${modules}/@modelcontextprotocol/ext-tasks/dist/client/index.js`);

function out(step, v) { console.log(JSON.stringify({ step, ...v })); }

async function connect() {
  const client = new Client({ name: "exttasks-v1", version: "1" }, { supportedProtocolVersions: ["2025-11-25"] });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const client = await connect();
// The notifications/tasks/status the server sends on the session's event
// stream, recorded before the tasks session chains its own handler.
const notified = [];
client.fallbackNotificationHandler = async (n) => {
  if (n?.method === "notifications/tasks/status") notified.push(n.params);
};
const caps = client.getServerCapabilities();
out("capabilities", { version: client.getNegotiatedProtocolVersion?.() ?? null, tasks: caps?.tasks ?? null });
const session = createTaskSessionFromClient(client, { endpointId: "everything" });
const prefer = { task: { preference: "prefer" } };
try {
  // A task seen working, then its result.
  const exec = await session.callTool("slow_compute", { seconds: 1, label: "report" }, prefer);
  const statuses = [];
  for await (const ev of exec.updates()) {
    const view = taskViewFromExecutionEvent(ev);
    if (view?.status && statuses[statuses.length - 1] !== view.status) statuses.push(view.status);
  }
  const { outcome } = await exec.settle();
  const result = resultFromTaskOutcome(outcome);
  out("result", { kind: exec.kind, statuses, text: result?.content?.[0]?.text ?? null });
  const mine = notified.filter((p) => p.taskId === exec.handle.taskId);
  out("notified", { count: mine.length, statuses: mine.map((p) => p.status) });

  // A task=required tool, which the client calls as a task by itself.
  const req = await session.callTool("failing_job", {});
  const settled = await req.settle();
  const failed = resultFromTaskOutcome(settled.outcome);
  out("required_task", { kind: req.kind, text: failed?.content?.[0]?.text ?? null, isError: failed?.isError ?? false });

  // A cancel.
  const long = await session.callTool("slow_compute", { seconds: 60, label: "long" }, prefer);
  await long.cancel();
  const view = await session.task(long.handle.taskId).snapshot();
  out("cancel", { kind: long.kind, status: view?.status ?? null });

  // tasks/list: the session's tasks.
  const listed = await session.listTasks();
  out("list", { count: listed.tasks.length, statuses: listed.tasks.map((t) => t.status).sort() });
} catch (e) {
  out("error", { message: String(e?.stack ?? e), cause: JSON.stringify(e?.cause?.issues ?? e?.cause?.message ?? e?.cause ?? null).slice(0, 1500) });
} finally {
  await session.close();
  await client.close();
}

// task=required refused to a client that does not use tasks: a plain
// tools/call, without the task param.
const plain = await connect();
try {
  const res = await plain.request({ method: "tools/call", params: { name: "failing_job", arguments: {} } });
  out("required", { refused: false, res });
} catch (e) {
  out("required", { refused: true, code: e?.code ?? null, message: String(e?.message ?? e) });
} finally {
  await plain.close();
}
