// mcpgen/ui: the bridge between an mcpgen view and its MCP Apps host.
//
// It speaks the MCP Apps postMessage JSON-RPC protocol (SEP-1865, version
// 2026-01-26) directly: ui/initialize, then ui/notifications/initialized;
// tool input, partial input, result and cancellation from the host; host
// context changes (theme, styles, display mode); size changes; tools/call,
// resources/read, ui/open-link, ui/message, ui/update-model-context and
// ui/request-display-mode to the host; ui/resource-teardown. No zod, no MCP
// client: a view's bundle stays near the size of React itself.

import { useSyncExternalStore } from "react";

const PROTOCOL_VERSION = "2026-01-26";

export type DisplayMode = "inline" | "fullscreen" | "pip";
export type Theme = "light" | "dark";

export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  [key: string]: unknown;
}

export interface CallToolResult<T = Record<string, unknown>> {
  content: ContentBlock[];
  structuredContent?: T;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ReadResourceResult {
  contents: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

export interface HostContext {
  theme?: Theme;
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  displayMode?: DisplayMode;
  availableDisplayModes?: DisplayMode[];
  containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform?: "web" | "desktop" | "mobile";
  deviceCapabilities?: { touch?: boolean; hover?: boolean };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  toolInfo?: { id?: string | number; tool: { name: string; [key: string]: unknown } };
  [key: string]: unknown;
}

export interface ModelContext {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
}

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

// The tool map: the declaration file (ui/mcpgen.d.ts) fills it in from the
// connector's tools; here it is empty, and the module works on any name.
export interface ToolMap {}
export type ToolName = keyof ToolMap & string;
export type ToolArgs<N extends ToolName> = ToolMap[N] extends { input: infer I }
  ? ({} extends I ? [args?: I] : [args: I])
  : [args?: Record<string, unknown>];
export type ToolOutput<N extends ToolName> = ToolMap[N] extends { output: infer O } ? O : unknown;
/**
 * What the untyped callTool overload accepts as a name: a name computed at
 * run time (string), or any name once a type argument is given; not a
 * literal name of the tool map (its arguments are checked by the typed
 * overload) nor, without a type argument, a literal name outside it.
 */
export type UntypedToolName<N extends string> = [ToolName] extends [never]
  ? unknown
  : N extends ToolName
    ? never
    : string extends N
      ? unknown
      : ToolName;

export interface App {
  callTool<N extends ToolName>(name: N, ...args: ToolArgs<N>): Promise<CallToolResult<ToolOutput<N>>>;
  callTool<T = Record<string, unknown>, N extends string = string>(name: N & UntypedToolName<N>, args?: Record<string, unknown>): Promise<CallToolResult<T>>;
  readResource(uri: string): Promise<ReadResourceResult>;
  openLink(url: string): Promise<void>;
  sendMessage(text: string): Promise<void>;
  updateModelContext(context: string | ModelContext): Promise<void>;
  requestDisplayMode(mode: DisplayMode): Promise<DisplayMode>;
  log(level: LogLevel, data: unknown): void;
}

/** Thrown when the host answers a request with a JSON-RPC error. */
export class HostError extends Error {
  code: number;
  data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "HostError";
    this.code = code;
    this.data = data;
  }
}

interface State {
  connected: boolean;
  input?: Record<string, unknown>;
  partialInput?: Record<string, unknown>;
  result?: CallToolResult;
  cancelled?: { reason?: string };
  host: HostContext;
  hostInfo?: { name: string; version: string };
  hostCapabilities?: Record<string, unknown>;
}

type Pending = { resolve(v: any): void; reject(e: Error): void };

let state: State = { connected: false, host: {} };
const listeners = new Set<() => void>();
const teardowns = new Set<() => void | Promise<void>>();
const pending = new Map<number, Pending>();
let nextId = 1;
let started = false;
let resolveReady: () => void;
let rejectReady: (e: Error) => void;
const ready = new Promise<void>((resolve, reject) => {
  resolveReady = resolve;
  rejectReady = reject;
});
ready.catch(() => {}); // the rejection reaches every request that waits for it

function set(patch: Partial<State>) {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
}

function post(message: Record<string, unknown>) {
  window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

function request<T>(method: string, params: unknown): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    post({ id, method, params });
  });
}

async function call<T>(method: string, params: unknown): Promise<T> {
  await ready;
  return request<T>(method, params);
}

function notify(method: string, params?: unknown) {
  post(params === undefined ? { method } : { method, params });
}

function applyHostContext(ctx: HostContext) {
  const root = document.documentElement;
  if (ctx.theme) {
    root.dataset.theme = ctx.theme;
    root.style.colorScheme = ctx.theme;
  }
  const vars = ctx.styles?.variables;
  if (vars) {
    for (const [k, v] of Object.entries(vars)) {
      if (v !== undefined && v !== null) root.style.setProperty(k, v);
    }
  }
  const fonts = ctx.styles?.css?.fonts;
  if (fonts) {
    let el = document.getElementById("mcpgen-fonts");
    if (!el) {
      el = document.createElement("style");
      el.id = "mcpgen-fonts";
      document.head.appendChild(el);
    }
    el.textContent = fonts;
  }
}

function mergeHost(patch: HostContext) {
  const host = { ...state.host, ...patch };
  applyHostContext(patch);
  set({ host });
}

async function onRequest(id: unknown, method: string, _params: any) {
  if (method === "ui/resource-teardown") {
    for (const fn of teardowns) {
      try {
        await fn();
      } catch (e) {
        console.error("mcpgen/ui: teardown:", e);
      }
    }
    post({ id, result: {} });
    return;
  }
  if (method === "ping") {
    post({ id, result: {} });
    return;
  }
  post({ id, error: { code: -32601, message: `mcpgen/ui: method not found: ${method}` } });
}

function onNotification(method: string, params: any) {
  switch (method) {
    case "ui/notifications/tool-input":
      set({ input: params?.arguments ?? {}, partialInput: undefined });
      break;
    case "ui/notifications/tool-input-partial":
      set({ partialInput: params?.arguments ?? {} });
      break;
    case "ui/notifications/tool-result":
      set({ result: params as CallToolResult, cancelled: undefined });
      break;
    case "ui/notifications/tool-cancelled":
      set({ cancelled: { reason: params?.reason } });
      break;
    case "ui/notifications/host-context-changed":
      mergeHost((params ?? {}) as HostContext);
      break;
  }
}

function onMessage(event: MessageEvent) {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
  if (typeof m.method === "string") {
    if (m.id !== undefined && m.id !== null) void onRequest(m.id, m.method, m.params);
    else onNotification(m.method, m.params);
    return;
  }
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  if (m.error) p.reject(new HostError(m.error.code, m.error.message, m.error.data));
  else p.resolve(m.result);
}

function observeSize() {
  let scheduled = false;
  let lastW = 0;
  let lastH = 0;
  const measure = () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const root = document.documentElement;
      const saved = root.style.height;
      root.style.height = "max-content";
      const height = Math.ceil(root.getBoundingClientRect().height);
      root.style.height = saved;
      const width = Math.ceil(window.innerWidth);
      if (width !== lastW || height !== lastH) {
        lastW = width;
        lastH = height;
        notify("ui/notifications/size-changed", { width, height });
      }
    });
  };
  measure();
  const ro = new ResizeObserver(measure);
  ro.observe(document.documentElement);
  ro.observe(document.body);
}

/**
 * connect starts the handshake with the host. The generated entry of every
 * view calls it before rendering; calling it again does nothing.
 */
export function connect(name: string, version = "1.0.0"): Promise<void> {
  if (started) return ready;
  started = true;
  if (window.parent === window) {
    // Opened on its own, not in a host's iframe: render, but talk to no one.
    console.warn("mcpgen/ui: not inside an MCP Apps host; the view gets no tool data");
    rejectReady(new HostError(0, "mcpgen/ui: not inside an MCP Apps host"));
    return ready;
  }
  window.addEventListener("message", onMessage);
  request<any>("ui/initialize", {
    appInfo: { name, version },
    appCapabilities: { availableDisplayModes: ["inline", "fullscreen", "pip"] },
    protocolVersion: PROTOCOL_VERSION,
  }).then(
    (res) => {
      const host = (res?.hostContext ?? {}) as HostContext;
      applyHostContext(host);
      set({ connected: true, host, hostInfo: res?.hostInfo, hostCapabilities: res?.hostCapabilities });
      notify("ui/notifications/initialized", {});
      resolveReady();
      observeSize();
    },
    (err) => {
      console.error("mcpgen/ui: ui/initialize failed:", err);
      rejectReady(err instanceof Error ? err : new HostError(0, String(err)));
    },
  );
  return ready;
}

function textContent(text: string): ContentBlock[] {
  return [{ type: "text", text }];
}

const app: App = {
  callTool: (name: string, args?: unknown) => call<CallToolResult<any>>("tools/call", { name, arguments: args ?? {} }),
  readResource: (uri) => call("resources/read", { uri }),
  openLink: async (url) => {
    const res = await call<{ isError?: boolean }>("ui/open-link", { url });
    if (res?.isError) throw new HostError(0, `host refused to open ${url}`);
  },
  sendMessage: async (text) => {
    const res = await call<{ isError?: boolean }>("ui/message", { role: "user", content: textContent(text) });
    if (res?.isError) throw new HostError(0, "host refused the message");
  },
  updateModelContext: async (context) => {
    const params = typeof context === "string" ? { content: textContent(context) } : context;
    await call("ui/update-model-context", params);
  },
  requestDisplayMode: async (mode) => {
    const res = await call<{ mode?: DisplayMode }>("ui/request-display-mode", { mode });
    const granted = res?.mode ?? state.host.displayMode ?? "inline";
    if (granted !== state.host.displayMode) set({ host: { ...state.host, displayMode: granted } });
    return granted;
  },
  log: (level, data) => {
    ready.then(
      () => notify("notifications/message", { level, data }),
      () => {},
    );
  },
};

function subscribe(fn: () => void) {
  listeners.add(fn);
  return () => {
    listeners.delete(fn);
  };
}

function useStore<T>(select: (s: State) => T): T {
  return useSyncExternalStore(subscribe, () => select(state));
}

/** The structuredContent of the tool result; undefined until it arrives. */
export function useToolData<T = Record<string, unknown>>(): T | undefined {
  return useStore((s) => s.result?.structuredContent) as T | undefined;
}

/** The whole tool result (content, structuredContent, isError). */
export function useToolResult<T = Record<string, unknown>>(): CallToolResult<T> | undefined {
  return useStore((s) => s.result) as CallToolResult<T> | undefined;
}

/** The tool's arguments; undefined until the host sends them. */
export function useToolInput<T = Record<string, unknown>>(): T | undefined {
  return useStore((s) => s.input) as T | undefined;
}

/** The arguments while the model is still streaming them. */
export function useToolInputPartial<T = Record<string, unknown>>(): Partial<T> | undefined {
  return useStore((s) => s.partialInput) as Partial<T> | undefined;
}

/** Set when the host cancelled the tool call. */
export function useToolCancelled(): { reason?: string } | undefined {
  return useStore((s) => s.cancelled);
}

/** The host's context: theme, locale, display mode, container size ... */
export function useHostContext(): HostContext {
  return useStore((s) => s.host);
}

/** The current display mode ("inline" until the host says otherwise). */
export function useDisplayMode(): DisplayMode {
  return useStore((s) => s.host.displayMode ?? "inline");
}

/** Whether the handshake with the host has completed. */
export function useConnected(): boolean {
  return useStore((s) => s.connected);
}

/** Actions toward the host. The returned object is stable. */
export function useApp(): App {
  return app;
}

/**
 * onTeardown registers fn to run when the host tears the view down
 * (ui/resource-teardown); it returns a function that unregisters it.
 */
export function onTeardown(fn: () => void | Promise<void>): () => void {
  teardowns.add(fn);
  return () => {
    teardowns.delete(fn);
  };
}
