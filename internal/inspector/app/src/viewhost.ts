// ViewHost renders one tool's view the way a chat host does: it reads the
// view resource, has the inspector's server keep it on the sandbox origin
// (a second port, served with the view's declared CSP), shows it in an
// iframe with sandbox="allow-scripts" and speaks to it through AppBridge,
// the official host side of MCP Apps. Every postMessage is logged.

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
}

export interface Events {
  status(s: AppStatus, error?: string): void;
  size(height: number | undefined, width: number | undefined): void;
  displayMode(mode: Emulation["mode"]): void;
  hostEvent(kind: string, data: unknown): void;
}

export class ViewHost {
  private bridge?: AppBridge;
  private iframe?: HTMLIFrameElement;
  private initialized = false;
  private resultSent = false;
  private render?: Render;
  private gen = 0;

  constructor(
    private container: HTMLElement,
    private client: Client,
    private sandboxOrigin: () => string,
    private emulation: () => Emulation,
    private events: Events,
  ) {}

  // load renders r, replacing whatever view was shown.
  async load(r: Render): Promise<void> {
    const gen = ++this.gen;
    this.render = r;
    this.events.status("loading");
    try {
      const read: any = await this.client.readResource({ uri: r.uri });
      if (gen !== this.gen) return;
      const content = read.contents?.[0];
      if (!content || typeof content.text !== "string") throw new Error(`resource ${r.uri} has no HTML text`);
      const csp = content._meta?.ui?.csp ?? null;
      const res = await fetch("/_mcpgen/views", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ html: content.text, csp }),
      });
      if (!res.ok) throw new Error(`storing the view: ${res.status} ${await res.text()}`);
      const { path } = await res.json();
      if (gen !== this.gen) return;
      await this.teardown();
      this.mount(r, this.sandboxOrigin() + path, gen);
    } catch (e) {
      if (gen === this.gen) this.events.status("error", String((e as Error)?.message ?? e));
    }
  }

  // setResult hands the view the result of a call that finished after load.
  async setResult(result: any) {
    if (!this.render) return;
    this.render = { ...this.render, result };
    await this.sendResult();
  }

  // update tells the view about a changed emulation (theme, display mode, size).
  update() {
    if (!this.bridge || !this.render) return;
    this.bridge.setHostContext(hostContext(this.emulation(), this.render.tool));
  }

  // reload re-reads the view (its URI may have changed with a rebuild) and
  // renders it again with the same input and result.
  async reload(uri?: string) {
    if (!this.render) return;
    await this.load({ ...this.render, uri: uri ?? this.render.uri });
  }

  current(): Render | undefined {
    return this.render;
  }

  private mount(r: Render, src: string, gen: number) {
    const e = this.emulation();
    const preset: Preset = presets[e.host];
    this.initialized = false;
    this.resultSent = false;
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("title", `view of ${r.tool?.name ?? "tool"}`);
    iframe.className = "view-frame";
    this.container.replaceChildren(iframe);
    this.iframe = iframe;

    const bridge = new AppBridge(this.client, preset.hostInfo, preset.capabilities, {
      hostContext: hostContext(e, r.tool),
    });
    this.bridge = bridge;
    bridge.onsizechange = (p) => {
      if (gen === this.gen) this.events.size(p.height, p.width);
    };
    bridge.onrequestdisplaymode = async ({ mode }) => {
      this.events.hostEvent("request-display-mode", { mode });
      const available = preset.displayModes;
      const granted = available.includes(mode as any) ? mode : this.emulation().mode;
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
      this.initialized = true;
      void (async () => {
        await bridge.sendToolInput({ arguments: r.input });
        await this.sendResult();
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
        if (gen === this.gen) iframe.src = src;
      })
      .catch((err) => this.events.status("error", String(err)));
  }

  private async sendResult() {
    const r = this.render;
    if (!this.bridge || !r || !this.initialized || this.resultSent || r.result === undefined) return;
    this.resultSent = true;
    const gen = this.gen;
    await this.bridge.sendToolResult(r.result);
    if (gen === this.gen) this.events.status("ready");
  }

  async teardown() {
    const b = this.bridge;
    this.bridge = undefined;
    if (b && this.initialized) {
      try {
        await Promise.race([b.teardownResource({}), new Promise((r) => setTimeout(r, 300))]);
      } catch {
        // the view is going away regardless
      }
    }
    try {
      await b?.close();
    } catch {
      // already closed
    }
    this.iframe?.remove();
    this.iframe = undefined;
  }

  async clear() {
    this.gen++;
    this.render = undefined;
    await this.teardown();
    this.events.status("idle");
  }
}
