// Tasks: a tool marked //mcpgen:tool task runs as an MCP task (the
// extension io.modelcontextprotocol/tasks of MCP 2026-07-28). The
// inspector's SDK client speaks 2025-11-25 sessions, where a task tool
// answers at once, so a task's requests (tools/call, tasks/get,
// tasks/update, tasks/cancel) are sent here as 2026-07-28 requests on the
// same /mcp, each carrying its version and capabilities in _meta, and
// recorded in the protocol log like the client's.

import { getToken } from "./mcp";
import * as oauth from "./oauth";
import * as protocol from "./protocol";

export const TASKS = "io.modelcontextprotocol/tasks";
const VERSION = "2026-07-28";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

// Task is a task as tasks/get details it.
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  pollIntervalMs?: number;
  result?: any;
  error?: { code: number; message: string };
  inputRequests?: Record<string, { method: string; params?: any }>;
}

export function final(s: TaskStatus | undefined): boolean {
  return s === "completed" || s === "failed" || s === "cancelled";
}

// taskSupport says whether a listed tool runs as a task: "optional",
// "required", or undefined. MCP 2025-11-25 lists it as
// execution.taskSupport; mcpgen's connectors also say it in
// _meta["mcpgen/task"], since 2026-07-28 has no field for it.
export function taskSupport(tool: any): "optional" | "required" | undefined {
  const s = tool?.execution?.taskSupport ?? tool?._meta?.["mcpgen/task"];
  return s === "optional" || s === "required" ? s : undefined;
}

// RequestError is a JSON-RPC error or an HTTP refusal; status is the
// HTTP status (401 and 403 bring the sign-in panel back).
export class RequestError extends Error {
  constructor(message: string, public code?: number, public status?: number) {
    super(message);
  }
}

let nextId = 1;

// request sends one 2026-07-28 request declaring the tasks extension and
// returns its result.
export async function request(method: string, name: string, params: Record<string, unknown>): Promise<any> {
  const msg = {
    jsonrpc: "2.0",
    id: `task-${nextId++}`,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": { name: "mcpgen-inspector", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, sampling: {}, extensions: { [TASKS]: {} } },
      },
    },
  };
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": VERSION,
    "Mcp-Method": method,
    "Mcp-Name": name,
  };
  const send = () => {
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    return fetch(new URL("/mcp", location.href), { method: "POST", headers, body: JSON.stringify(msg) });
  };
  protocol.record("server", "send", msg);
  let res = await send();
  if (res.status === 401 || res.status === 403) oauth.noteChallenge(res.headers.get("WWW-Authenticate"));
  // An expired OAuth access token is refreshed once (oauth.ts).
  if (res.status === 401 && (await oauth.refresh())) res = await send();
  let text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // The answer is the stream's last message; notifications may come first.
    const data = text.split("\n").filter((l) => l.startsWith("data: "));
    for (const l of data.slice(0, -1)) protocol.record("server", "recv", safeParse(l.slice(6)));
    text = data.length > 0 ? data[data.length - 1].slice(6) : "";
  }
  const answer = safeParse(text);
  if (answer === undefined || typeof answer !== "object") {
    throw new RequestError(`${method}: HTTP ${res.status}: ${text.slice(0, 300)}`, undefined, res.status);
  }
  protocol.record("server", "recv", answer);
  if (answer.error) throw new RequestError(`${method}: ${answer.error.message} (${answer.error.code})`, answer.error.code, res.status);
  return answer.result;
}

function safeParse(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

// callTask calls a tool as a task. A server that answers at once (the
// tool is not a task tool) gives its result instead: {result}.
export async function callTask(name: string, args: Record<string, unknown>): Promise<{ task?: Task; result?: any }> {
  const r = await request("tools/call", name, { name, arguments: args });
  if (r?.resultType === "task" && r.taskId) return { task: r as Task };
  return { result: r };
}

export const getTask = (id: string): Promise<Task> => request("tasks/get", id, { taskId: id });
export const cancelTask = (id: string): Promise<unknown> => request("tasks/cancel", id, { taskId: id });
export const updateTask = (id: string, inputResponses: Record<string, unknown>): Promise<unknown> =>
  request("tasks/update", id, { taskId: id, inputResponses });
