// The protocol log: every JSON-RPC message between the inspector and the
// MCP server, and every postMessage between the inspector (as host) and
// the view, in the order they happened.

export type Channel = "server" | "view";
export type Direction = "send" | "recv";

export interface Entry {
  seq: number;
  at: number; // milliseconds since the page started
  channel: Channel;
  dir: Direction;
  message: any;
  traceId?: string; // the trace of a request the inspector sent, when tracing
}

const t0 = performance.now();
let entries: Entry[] = [];
let listeners: Array<() => void> = [];
let seq = 0;

export function record(channel: Channel, dir: Direction, message: unknown, traceId?: string) {
  entries = [...entries, { seq: ++seq, at: Math.round(performance.now() - t0), channel, dir, message, ...(traceId ? { traceId } : {}) }];
  if (entries.length > 2000) entries = entries.slice(entries.length - 2000);
  for (const l of listeners) l();
}

export function all(): Entry[] {
  return entries;
}

export function clear() {
  entries = [];
  for (const l of listeners) l();
}

export function subscribe(l: () => void): () => void {
  listeners.push(l);
  return () => {
    listeners = listeners.filter((x) => x !== l);
  };
}

// describe names a message for the log's one-line summary.
export function describe(m: any): string {
  if (!m || typeof m !== "object") return String(m);
  if (m.method) return m.id !== undefined ? `${m.method} #${m.id}` : m.method;
  if (m.error) return `error #${m.id}: ${m.error.message ?? ""}`;
  if ("result" in m) return `result #${m.id}`;
  return "message";
}

// Under mcpgen dev the connector exports traces to the inspector: each
// request to the server then carries a sampled W3C traceparent in its
// _meta, which the server's spans continue, and its log entry the trace id.
let tracing = false;

export function setTracing(on: boolean) {
  tracing = on;
}

function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// traced gives a request to the server a traceparent (unless it has one)
// and returns its trace id.
function traced(m: any): string | undefined {
  if (!tracing || !m || typeof m.method !== "string" || m.id === undefined) return undefined;
  const params = (m.params ??= {});
  const meta = (params._meta ??= {});
  if (typeof meta.traceparent === "string") return meta.traceparent.split("-")[1];
  const traceId = randomHex(16);
  meta.traceparent = `00-${traceId}-${randomHex(8)}-01`;
  return traceId;
}

// tap logs a transport's traffic without replacing it: the SDKs set
// onmessage after construction, so the property is wrapped.
export function tap<T extends { send: (m: any, o?: any) => Promise<void> }>(t: T, channel: Channel, observe?: (m: any) => void): T {
  const send = t.send.bind(t);
  t.send = (m: any, o?: any) => {
    record(channel, "send", m, channel === "server" ? traced(m) : undefined);
    return send(m, o);
  };
  let handler: ((m: any, extra?: any) => void) | undefined;
  const wrapped = (m: any, extra?: any) => {
    record(channel, "recv", m);
    try {
      observe?.(m);
    } catch {
      // an observer never breaks the conversation
    }
    handler?.(m, extra);
  };
  Object.defineProperty(t, "onmessage", {
    configurable: true,
    get: () => (handler ? wrapped : undefined),
    set: (h) => {
      handler = h;
    },
  });
  return t;
}
