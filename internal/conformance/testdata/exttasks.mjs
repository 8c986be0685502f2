// exttasks.mjs drives task tools of a running examples/everything through
// the official tasks client, @modelcontextprotocol/ext-tasks, over MCP
// 2026-07-28 Streamable HTTP, and prints one JSON line per step. The
// session's port (what carries its requests) is written here: a plain
// fetch per request with the 2026-07-28 _meta and routing headers.
//
//	node exttasks.mjs MODULES_DIR URL
const [modules, url] = process.argv.slice(2);
const { withTasks, resultFromTaskOutcome, taskViewFromExecutionEvent } =
  await import(`${modules}/@modelcontextprotocol/ext-tasks/dist/client/index.js`);
const TASKS = "io.modelcontextprotocol/tasks";
let nextId = 1;

// port is a ConnectedMcpSessionPort speaking 2026-07-28: each request
// carries its version and capabilities in _meta and its routing headers.
function port(declareTasks) {
  const caps = declareTasks ? { extensions: { [TASKS]: {} } } : {};
  return {
    endpointId: "everything",
    taskCapabilities: declareTasks ? { generation: "v2", capabilities: {} } : { generation: "none" },
    invalidated: false,
    async dispatch(request, options) {
      const params = { ...(request.params ?? {}) };
      params._meta = {
        ...(params._meta ?? {}),
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
      };
      const headers = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": request.method,
        ...(options?.context?.headers ?? {}),
      };
      const name = params.name ?? params.taskId;
      if (name !== undefined) headers["Mcp-Name"] = name;
      const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: request.method, params });
      const res = await fetch(url, { method: "POST", headers, body, signal: options?.signal });
      let text = await res.text();
      if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        const data = text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6);
        text = data[data.length - 1].slice(6);
      }
      const msg = JSON.parse(text);
      return msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result };
    },
    onServerRequest() { return () => {}; },
    onNotification() { return () => {}; },
    onInvalidated() { return () => {}; },
  };
}

function out(step, v) { console.log(JSON.stringify({ step, ...v })); }

const session = withTasks(port(true));
try {
  // A task seen working, then its result.
  const exec = await session.callTool("slow_compute", { seconds: 1, label: "report" });
  const statuses = [];
  for await (const ev of exec.updates()) {
    const view = taskViewFromExecutionEvent(ev);
    if (view?.status && statuses[statuses.length - 1] !== view.status) statuses.push(view.status);
  }
  const { outcome } = await exec.settle();
  const result = resultFromTaskOutcome(outcome);
  out("result", { kind: exec.kind, statuses, text: result?.content?.[0]?.text ?? null });

  // A cancel.
  const long = await session.callTool("slow_compute", { seconds: 60, label: "long" });
  await long.cancel();
  const view = await session.task(long.handle.taskId).snapshot();
  out("cancel", { kind: long.kind, status: view?.status ?? null });
} catch (e) {
  out("error", { message: String(e?.stack ?? e), cause: JSON.stringify(e?.cause?.issues ?? e?.cause?.message ?? e?.cause ?? null).slice(0, 1500) });
} finally {
  await session.close();
}

// task=required refused to a client that did not declare tasks.
const plain = withTasks(port(false));
try {
  const exec = await plain.callTool("failing_job", {});
  const { outcome } = await exec.settle();
  out("required", { refused: false, outcome });
} catch (e) {
  out("required", { refused: true, code: e?.error?.code ?? e?.code ?? null, message: String(e?.message ?? e) });
} finally {
  await plain.close();
}
