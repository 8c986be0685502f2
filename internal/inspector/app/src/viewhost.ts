// ViewHost renders one tool's view the way a chat host does: it reads the
// view resource, has the inspector's server keep it on the sandbox origin
// (a second port, served with the view's declared CSP), shows it in an
// iframe with sandbox="allow-scripts" and speaks to it through AppBridge,
// the official host side of MCP Apps. Every postMessage is logged. It is
// mcpgen's one MCP Apps host: the inspector uses it, and so does the test
// host page of internal/browsertest, which has no sandbox origin and shows
// the view document through srcdoc instead.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Client } from "@modelcontextprotocol/client";
import { tap } from "./protocol";
import type { Emulation, Preset } from "./presets";
import { hostContext, presets } from "./presets";

export type AppStatus = "idle" | "loading" | "ready" | "error";

export interface Render {
  tool: any;
  uri: string;
  input: Record<string, unknown>;
  // result is undefined while the call runs.
  result?: any;
  // calls, for a fixture: canned results for the tools the view calls.
  calls?: Record<string, any>;
  // partial, when set, is sent first as ui/notifications/tool-input-partial.
  partial?: Record<string, unknown>;
  // cancel, when set, is sent as the reason of
  // ui/notifications/tool-cancelled instead of the input and the result.
  cancel?: string;
}

export interface Events {
  status(s: AppStatus, error?: string): void;
  size(height: number | undefined, width: number | undefined): void;
  displayMode(mode: Emulation["mode"]): void;
  hostEvent(kind: string, data: unknown): void;
  // meta reports the view resource's _meta.ui (prefersBorder, csp, ...).
  meta(ui: any): void;
  // resource reports the view resource's content as read.
  resource?(content: any): void;
  // initialized reports the view's handshake: its name and version, and
  // its capabilities.
  initialized?(app: unknown, capabilities: unknown): void;
}

// Frame is one rendering of a view: its iframe and its bridge.
interface Frame {
  iframe: HTMLIFrameElement;
  bridge: AppBridge;
  initialized: boolean;
  resultSent: boolean;
  size?: { height?: number; width?: number };
}

export class ViewHost {
  // cur is the frame shown; next, during a reload, the new rendering that
  // replaces it once ready, so the view never blanks while it reloads.
  private cur?: Frame;
  private next?: Frame;
  private render?: Render;
  private gen = 0;

  constructor(
    private container: HTMLElement,
    private client: Client,
    // sandboxOrigin is null for a host without a sandbox origin: the view
    // document is then shown through srcdoc, without the CSP header.
    private sandboxOrigin: (() => string) | null,
    private emulation: () => Emulation,
    private events: Events,
    // dimensions, when set, replace the preset's containerDimensions: the
    // test host page shows every view in one fixed frame.
    private dimensions?: { width: number; maxHeight: number },
  ) {}

  // context is the host context of the current emulation for tool.
  private context(e: Emulation, tool: any) {
    const c = hostContext(e, tool);
    return this.dimensions ? { ...c, containerDimensions: this.dimensions as any } : c;
  }

  // load renders r, replacing whatever view was shown; with swap, the old
  // view stays until the new one is ready.
  async load(r: Render, swap = false): Promise<void> {
    const gen = ++this.gen;
    this.render = r;
    if (!swap || !this.cur) this.events.status("loading");
    try {
      const read: any = await this.client.readResource({ uri: r.uri });
      if (gen !== this.gen) return;
      const content = read.contents?.[0];
      if (!content || typeof content.text !== "string") throw new Error(`resource ${r.uri} has no HTML text`);
      const csp = content._meta?.ui?.csp ?? null;
      this.events.meta(content._meta?.ui ?? {});
      this.events.resource?.(content);
      let doc: { src?: string; srcdoc?: string } = { srcdoc: content.text };
      if (this.sandboxOrigin) {
        const res = await fetch("/_mcpgen/views", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ html: content.text, csp }),
        });
        if (!res.ok) throw new Error(`storing the view: ${res.status} ${await res.text()}`);
        const { path } = await res.json();
        doc = { src: this.sandboxOrigin() + path };
      }
      if (gen !== this.gen) return;
      const pending = this.next;
      this.next = undefined;
      if (pending) void this.retire(pending);
      if (!swap || !this.cur) {
        const old = this.cur;
        this.cur = undefined;
        if (old) await this.retire(old);
      }
      this.mount(r, doc, gen, !!this.cur);
    } catch (e) {
      if (gen === this.gen) this.events.status("error", String((e as Error)?.message ?? e));
    }
  }

  // setResult hands the view the result of a call that finished after load.
  async setResult(result: any) {
    if (!this.render) return;
    this.render = { ...this.render, result };
    const f = this.next ?? this.cur;
    if (f) await this.sendResult(f, this.gen);
  }

  // update tells the view about a changed emulation (theme, display mode, size).
  update() {
    if (!this.render) return;
    for (const f of [this.cur, this.next]) f?.bridge.setHostContext(this.context(this.emulation(), this.render.tool));
  }

  // reload re-reads the view (its URI may have changed with a rebuild) and
  // renders it again with the same input and result, in place.
  async reload(uri?: string) {
    if (!this.render) return;
    await this.load({ ...this.render, uri: uri ?? this.render.uri }, true);
  }

  current(): Render | undefined {
    return this.render;
  }

  // teardown asks the view shown to tear down (ui/resource-teardown) and
  // returns its answer; the view stays shown.
  async teardown(): Promise<unknown> {
    return this.cur?.bridge.teardownResource({});
  }

  private mount(r: Render, doc: { src?: string; srcdoc?: string }, gen: number, swap: boolean) {
    const e = this.emulation();
    const preset: Preset = presets[e.host];
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("title", `view of ${r.tool?.name ?? "tool"}`);
    iframe.className = swap ? "view-frame offstage" : "view-frame";
    if (swap) this.container.appendChild(iframe);
    else this.container.replaceChildren(iframe);

    const bridge = new AppBridge(this.client, preset.hostInfo, preset.capabilities, {
      hostContext: this.context(e, r.tool),
    });
    const f: Frame = { iframe, bridge, initialized: false, resultSent: false };
    if (swap) this.next = f;
    else this.cur = f;
    bridge.onsizechange = (p) => {
      f.size = p;
      if (gen === this.gen && f === this.cur) this.events.size(p.height, p.width);
    };
    bridge.onrequestdisplaymode = async ({ mode }) => {
      this.events.hostEvent("request-display-mode", { mode });
      const granted = preset.displayModes.includes(mode as any) ? mode : this.emulation().mode;
      if (granted !== this.emulation().mode) this.events.displayMode(granted as any);
      return { mode: granted };
    };
    bridge.onopenlink = async (p) => {
      this.events.hostEvent("open-link", p);
      window.open(p.url, "_blank", "noopener,noreferrer");
      return {};
    };
    bridge.onmessage = async (p) => {
      this.events.hostEvent("message", p);
      return {};
    };
    bridge.onupdatemodelcontext = async (p) => {
      this.events.hostEvent("update-model-context", p);
      return {};
    };
    bridge.onloggingmessage = (p) => this.events.hostEvent("log", p);
    const fixtureCalls = () => {
      if (!r.calls) return;
      const calls = r.calls;
      bridge.oncalltool = async (p) => {
        const canned = calls[p.name];
        if (canned) return canned;
        return {
          isError: true,
          content: [{ type: "text", text: `the fixture has no canned result for ${p.name}; add "calls": {"${p.name}": {...}} to it` }],
        } as any;
      };
    };
    bridge.oninitialized = () => {
      if (gen !== this.gen) return;
      f.initialized = true;
      this.events.initialized?.(bridge.getAppVersion(), bridge.getAppCapabilities());
      void (async () => {
        if (r.partial) await bridge.sendToolInputPartial({ arguments: r.partial });
        if (r.cancel !== undefined) {
          await bridge.sendToolCancelled({ reason: r.cancel });
          this.events.hostEvent("tool-cancelled", { reason: r.cancel });
          this.events.status("ready");
          return;
        }
        await bridge.sendToolInput({ arguments: r.input });
        await this.sendResult(f, gen);
      })().catch((err) => this.events.status("error", String(err)));
    };
    // Listen before the document loads: the view starts its handshake as
    // soon as its script runs. The frame's window stays the same object
    // across the navigation to src.
    const transport = tap(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!), "view");
    bridge
      .connect(transport)
      .then(() => {
        // After connect, which installs the forwarding to the server that
        // a fixture's canned answers replace.
        fixtureCalls();
        if (gen !== this.gen) return;
        if (doc.src !== undefined) iframe.src = doc.src;
        else iframe.srcdoc = doc.srcdoc ?? "";
      })
      .catch((err) => this.events.status("error", String(err)));
  }

  private async sendResult(f: Frame, gen: number) {
    const r = this.render;
    if (!r || !f.initialized || f.resultSent || r.result === undefined) return;
    f.resultSent = true;
    await f.bridge.sendToolResult(r.result);
    if (gen !== this.gen) return;
    if (f === this.next) {
      // The new rendering is ready: it replaces the old one.
      const old = this.cur;
      this.cur = f;
      this.next = undefined;
      f.iframe.classList.remove("offstage");
      if (f.size) this.events.size(f.size.height, f.size.width);
      if (old) {
        old.iframe.classList.add("offstage");
        void this.retire(old);
      }
    }
    this.events.status("ready");
  }

  // retire asks a view to tear down, then removes it.
  private async retire(f: Frame) {
    if (f.initialized) {
      try {
        await Promise.race([f.bridge.teardownResource({}), new Promise((r) => setTimeout(r, 300))]);
      } catch {
        // the view is going away regardless
      }
    }
    try {
      await f.bridge.close();
    } catch {
      // already closed
    }
    f.iframe.remove();
  }

  async clear() {
    const gen = ++this.gen;
    this.render = undefined;
    const frames = [this.cur, this.next];
    this.cur = this.next = undefined;
    for (const f of frames) f?.iframe.classList.add("offstage");
    this.events.status("idle");
    await Promise.all(frames.map((f) => (f ? this.retire(f) : undefined)));
    if (gen !== this.gen) return; // a new view was loaded meanwhile
  }
}
