// The inspector's page: the server's tools, resources, templates, prompts
// and fixtures on the left; the selected tool's form, result and view in
// the middle, rendered under an emulated host; the protocol log on the
// right; build errors from mcpgen dev as an overlay.

import React from "react";
import type { Client } from "@modelcontextprotocol/client";
import { authProblem, connect, getToken, listAll, setToken, viewURI, type AuthProblem, type Lists } from "./mcp";
import * as oauth from "./oauth";
import { Fields, initial, validate } from "./form";
import { presets, type DisplayMode, type Emulation, type HostName, type Theme, type Width } from "./presets";
import { ViewHost, type AppStatus } from "./viewhost";
import * as protocol from "./protocol";
import * as tasks from "./tasks";

interface Fixture {
  tool: string;
  name: string;
  file: string;
  input: Record<string, unknown>;
  result: any;
  calls?: Record<string, any>;
}

interface Diag {
  file: string;
  line: number;
  col: number;
  severity: string;
  message: string;
  hint?: string;
  text: string;
  // stage is the check that found it: "go" or "views" (the last good
  // build keeps serving), "types" (the view serves despite it).
  stage?: string;
}

interface BuildStatus {
  build: number;
  ok: boolean;
  diagnostics: Diag[];
}

interface CallOutcome {
  result?: any;
  error?: string;
  ms?: number;
  fixture?: string;
}

// TaskRun is the task the tool runner started and follows.
interface TaskRun {
  tool: string;
  id: string;
  status: tasks.TaskStatus;
  message: string;
}

type Selection = { kind: "tool" | "resource" | "template" | "prompt"; name: string } | null;

const query = new URLSearchParams(location.search);

function pick<T extends string>(v: string | null, allowed: readonly T[], dflt: T): T {
  return v && (allowed as readonly string[]).includes(v) ? (v as T) : dflt;
}

const TOKEN_WARN = 10_000;
const TOKEN_CAP = 25_000;

// estimateTokens approximates what a result costs a model: about four
// characters of JSON per token.
function estimateTokens(r: any): number {
  return Math.ceil(JSON.stringify(r ?? {}).length / 4);
}

function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(2)} MiB`;
}

declare global {
  interface Window {
    __mcpgenInspector: {
      status: AppStatus;
      error: string;
      protocol: protocol.Entry[];
      build: BuildStatus | null;
      // task is the task the tool runner follows: its id, status and
      // status message, as the last tasks/get told them.
      task: { id: string; status: tasks.TaskStatus; message: string } | null;
    };
  }
}
window.__mcpgenInspector = { status: "idle", error: "", protocol: [], build: null, task: null };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function App() {
  const [config, setConfig] = React.useState<{ name: string; sandboxPort: number } | null>(null);
  const [client, setClient] = React.useState<Client | null>(null);
  const [connError, setConnError] = React.useState("");
  const [notice, setNotice] = React.useState("");
  // auth is why the server refused the inspector (a server run with
  // --auth-issuer): the sign-in panel asks for a bearer token.
  const [auth, setAuth] = React.useState<{ problem: AuthProblem; detail: string }>({ problem: "", detail: "" });
  // A question the server asked (elicitation/create), until answered.
  const [question, setQuestion] = React.useState<{ params: any; answer: (r: any) => void } | null>(null);
  // A sampling/createMessage the user answers in the model's place.
  const [sampling, setSampling] = React.useState<{ params: any; answer: (text: string | null) => void } | null>(null);
  const [lists, setLists] = React.useState<Lists>({ tools: [], resources: [], templates: [], prompts: [] });
  const [fixtures, setFixtures] = React.useState<Fixture[]>([]);
  const [fixturesLoaded, setFixturesLoaded] = React.useState(false);
  const [fixtureDiags, setFixtureDiags] = React.useState<Diag[]>([]);
  const [sel, setSel] = React.useState<Selection>(null);
  const [input, setInput] = React.useState<Record<string, unknown>>({});
  const [raw, setRaw] = React.useState("{}");
  const [rawError, setRawError] = React.useState("");
  const [tab, setTab] = React.useState<"form" | "json">("form");
  const [outcome, setOutcome] = React.useState<CallOutcome | null>(null);
  const [calling, setCalling] = React.useState(false);
  const [task, setTask] = React.useState<TaskRun | null>(null);
  const [asTask, setAsTask] = React.useState(query.get("task") !== "0");
  // taskGen counts the tasks started: polling stops when a newer task, or
  // another tool, takes the runner.
  const taskGen = React.useRef(0);
  const [emu, setEmu] = React.useState<Emulation>({
    host: pick<HostName>(query.get("host"), ["claude", "chatgpt"], "claude"),
    theme: pick<Theme>(query.get("theme"), ["light", "dark"], "light"),
    mode: pick<DisplayMode>(query.get("mode"), ["inline", "fullscreen", "pip"], "inline"),
    width: pick<Width>(query.get("width"), ["desktop", "tablet", "mobile"], "desktop"),
    locale: query.get("locale") || navigator.language || "en-US",
  });
  const [appStatus, setAppStatus] = React.useState<AppStatus>("idle");
  const [appError, setAppError] = React.useState("");
  const [viewHeight, setViewHeight] = React.useState<number | undefined>();
  const [build, setBuild] = React.useState<BuildStatus | null>(null);
  const [overlayHidden, setOverlayHidden] = React.useState(false);
  const [detail, setDetail] = React.useState<any>(null);
  const [rendered, setRendered] = React.useState(false); // a view is shown in the stage
  const [border, setBorder] = React.useState(false); // the view's _meta.ui.prefersBorder
  // What the view asked of its host (links, messages, model context, logs).
  const [hostEvents, setHostEvents] = React.useState<{ seq: number; kind: string; text: string }[]>([]);

  const emuRef = React.useRef(emu);
  emuRef.current = emu;
  const listsRef = React.useRef(lists);
  listsRef.current = lists;
  const stageRef = React.useRef<HTMLDivElement>(null);
  const hostRef = React.useRef<ViewHost | null>(null);

  // The app's configuration, fixtures, and the build status stream.
  React.useEffect(() => {
    fetch("/_mcpgen/config")
      .then((r) => r.json())
      .then((c) => {
        protocol.setTracing(!!c.traces);
        setConfig(c);
        document.title = `${c.name} · mcpgen inspector`;
      })
      .catch((e) => setConnError(String(e)));
    const es = new EventSource("/_mcpgen/events");
    // The stream reopening after it broke means mcpgen dev restarted: its
    // MCP sessions are gone, so start again (the URL keeps the page's state).
    let broken = false;
    es.addEventListener("error", () => {
      broken = true;
    });
    es.addEventListener("open", () => {
      if (broken) location.reload();
    });
    es.addEventListener("status", (ev) => {
      const st: BuildStatus = JSON.parse((ev as MessageEvent).data);
      window.__mcpgenInspector.build = st;
      setBuild(st);
      setOverlayHidden(false);
    });
    return () => es.close();
  }, []);

  const loadFixtures = React.useCallback(async () => {
    try {
      const r = await fetch("/_mcpgen/fixtures").then((r) => r.json());
      setFixtures(r.fixtures ?? []);
      setFixtureDiags(r.diagnostics ?? []);
    } catch {
      // shown as no fixtures
    }
    setFixturesLoaded(true);
  }, []);

  // ask shows the server's elicitation/create as a dialog; sample lets the
  // user play the model for sampling/createMessage. Both answer the
  // client's requests and a task's inputRequests.
  const ask = React.useCallback(
    (params: any) => new Promise<any>((resolve) => setQuestion({ params, answer: (r) => (setQuestion(null), resolve(r)) })),
    [],
  );
  const sample = React.useCallback(
    (params: any) =>
      new Promise<any>((resolve, reject) =>
        setSampling({
          params,
          answer: (text) => {
            setSampling(null);
            if (text === null) reject(new Error("the user declined the sampling request in the inspector"));
            else resolve({ role: "assistant", content: { type: "text", text }, model: "mcpgen-inspector (typed by you)", stopReason: "endTurn" });
          },
        }),
      ),
    [],
  );

  // Connect, list, and follow the server's list changes.
  React.useEffect(() => {
    let relistTimer: number | undefined;
    let c: Client | undefined;
    const relist = () => {
      window.clearTimeout(relistTimer);
      relistTimer = window.setTimeout(async () => {
        if (!c) return;
        try {
          const l = await listAll(c);
          setLists(l);
          void loadFixtures();
          // Re-render the open view when its tool's view changed.
          const h = hostRef.current;
          const cur = h?.current();
          if (h && cur) {
            const t = l.tools.find((x) => x.name === cur.tool?.name);
            const uri = t && viewURI(t);
            if (uri && uri !== cur.uri) void h.reload(uri);
          }
        } catch (e) {
          setConnError(String(e));
        }
      }, 50);
    };
    connect(
      () => relist(),
      (uri) => {
        const cur = hostRef.current?.current();
        if (cur && cur.uri === uri) void hostRef.current!.reload();
      },
      ask,
      sample,
    )
      .then(async (cl) => {
        c = cl;
        cl.onclose = () => setConnError("the connection to the server closed; is mcpgen dev still running?");
        setClient(cl);
        const l = await listAll(cl);
        setLists(l);
        await loadFixtures();
      })
      .catch((e) => {
        const msg = String(e?.message ?? e);
        setAuth({ problem: authProblem(e), detail: msg });
        setConnError(msg);
      });
    return () => window.clearTimeout(relistTimer);
  }, [loadFixtures, ask, sample]);

  // A successful build after a failed one: list again (the server may not
  // have announced anything when nothing changed since the last good build).
  const lastOK = React.useRef(true);
  React.useEffect(() => {
    if (!build || !client) return;
    if (build.ok && !lastOK.current) {
      listAll(client).then(setLists).catch(() => {});
    }
    lastOK.current = build.ok;
  }, [build, client]);

  const status = React.useCallback((s: AppStatus, err?: string) => {
    setAppStatus(s);
    setAppError(err ?? "");
    window.__mcpgenInspector.status = s;
    window.__mcpgenInspector.error = err ?? "";
  }, []);

  // The view host, once connected.
  React.useEffect(() => {
    if (!client || !config || !stageRef.current) return;
    const h = new ViewHost(
      stageRef.current,
      client,
      () => `${location.protocol}//${location.hostname.includes(":") ? `[${location.hostname}]` : location.hostname}:${config.sandboxPort}`,
      () => emuRef.current,
      {
        status,
        size: (height) => setViewHeight(height),
        displayMode: (mode) => setEmu((e) => ({ ...e, mode })),
        meta: (ui) => setBorder(ui?.prefersBorder === true),
        hostEvent: (kind, data) =>
          setHostEvents((evs) => [...evs.slice(-5), { seq: (evs[evs.length - 1]?.seq ?? 0) + 1, kind, text: summarize(kind, data) }]),
      },
    );
    hostRef.current = h;
    return () => {
      void h.clear();
      hostRef.current = null;
    };
  }, [client, config, status]);

  // Tell the view about every emulation change, and keep the URL a deep link.
  React.useEffect(() => {
    hostRef.current?.update();
    const q = new URLSearchParams(location.search);
    q.set("host", emu.host);
    q.set("theme", emu.theme);
    q.set("mode", emu.mode);
    if (emu.width !== "desktop") q.set("width", emu.width);
    else q.delete("width");
    history.replaceState(null, "", "?" + q.toString());
  }, [emu]);

  React.useEffect(() => protocol.subscribe(() => (window.__mcpgenInspector.protocol = protocol.all())), []);

  const tool = sel?.kind === "tool" ? lists.tools.find((t) => t.name === sel.name) : undefined;
  const schema = tool?.inputSchema ?? { type: "object" };
  const errors = React.useMemo(() => (tool ? validate(schema, input, schema) : {}), [tool, schema, input]);

  const setBoth = (v: Record<string, unknown>) => {
    setInput(v);
    setRaw(JSON.stringify(v, null, 2));
    setRawError("");
  };

  const selectTool = React.useCallback(
    (t: any, args?: Record<string, unknown>) => {
      setSel({ kind: "tool", name: t.name });
      const v = args ?? initial(t.inputSchema ?? { type: "object" }, t.inputSchema) ?? {};
      setInput(v);
      setRaw(JSON.stringify(v, null, 2));
      setRawError("");
      setOutcome(null);
      setDetail(null);
      setViewHeight(undefined);
      setRendered(false);
      setHostEvents([]);
      taskGen.current++;
      setTask(null);
      window.__mcpgenInspector.task = null;
      void hostRef.current?.clear();
      const q = new URLSearchParams(location.search);
      q.set("tool", t.name);
      q.delete("fixture");
      q.delete("call");
      q.delete("input");
      history.replaceState(null, "", "?" + q.toString());
    },
    [],
  );

  // runTask calls t as a task and follows it with tasks/get at the
  // server's poll interval until it ends, answering its questions (with
  // the same dialogs as the client's) when it waits for input; its result
  // is shown like a call's, in the view too.
  const runTask = React.useCallback(
    async (t: any, args: Record<string, unknown>, uri: string | undefined, t0: number) => {
      const gen = ++taskGen.current;
      const current = () => gen === taskGen.current;
      const show = (tk: tasks.Task) => {
        if (!current()) return;
        const v = { id: tk.taskId, status: tk.status, message: tk.statusMessage ?? "" };
        setTask({ tool: t.name, ...v });
        window.__mcpgenInspector.task = v;
      };
      setTask(null);
      window.__mcpgenInspector.task = null;
      const { task: created, result } = await tasks.callTask(t.name, args);
      if (!created) {
        // The server answered at once (it has no task for this tool).
        setOutcome({ result, ms: Math.round(performance.now() - t0) });
        if (uri) await hostRef.current?.setResult(result);
        return;
      }
      show(created);
      let tk: tasks.Task = created;
      let asked = ""; // the questions answered, until the task works again
      while (!tasks.final(tk.status)) {
        await sleep(Math.max(50, tk.pollIntervalMs ?? created.pollIntervalMs ?? 200));
        if (!current()) return;
        tk = await tasks.getTask(created.taskId);
        show(tk);
        if (tk.status !== "input_required" || !tk.inputRequests) {
          asked = "";
          continue;
        }
        const key = JSON.stringify(tk.inputRequests);
        if (key === asked) continue;
        const answers: Record<string, unknown> = {};
        for (const [k, q] of Object.entries(tk.inputRequests)) {
          switch (q.method) {
            case "elicitation/create":
              answers[k] = await ask(q.params);
              break;
            case "sampling/createMessage":
              answers[k] = await sample(q.params);
              break;
            case "roots/list":
              answers[k] = { roots: [] };
              break;
          }
          if (!current()) return;
        }
        asked = key;
        await tasks.updateTask(created.taskId, answers);
      }
      if (!current()) return;
      const ms = Math.round(performance.now() - t0);
      switch (tk.status) {
        case "completed":
          setOutcome({ result: tk.result, ms });
          if (uri) await hostRef.current?.setResult(tk.result);
          break;
        case "failed": {
          const msg = `the task failed: ${tk.error?.message ?? tk.statusMessage ?? "no reason given"}`;
          setOutcome({ error: msg, ms });
          if (uri) status("error", msg);
          break;
        }
        case "cancelled":
          // Nothing to show: the task panel says it was cancelled.
          if (uri) {
            setRendered(false);
            void hostRef.current?.clear();
          }
          break;
      }
    },
    [ask, sample, status],
  );

  const cancelTask = React.useCallback(async (id: string) => {
    try {
      await tasks.cancelTask(id);
    } catch (e) {
      setOutcome({ error: String((e as Error)?.message ?? e) });
    }
  }, []);

  const call = React.useCallback(
    async (t: any, args: Record<string, unknown>) => {
      if (!client) return;
      setCalling(true);
      setOutcome(null);
      const uri = viewURI(t);
      if (uri && hostRef.current) {
        setRendered(true);
        setViewHeight(undefined);
        void hostRef.current.load({ tool: t, uri, input: args });
      }
      const q = new URLSearchParams(location.search);
      q.set("tool", t.name);
      q.set("input", JSON.stringify(args));
      q.delete("fixture");
      history.replaceState(null, "", "?" + q.toString());
      const t0 = performance.now();
      const support = tasks.taskSupport(t);
      try {
        if (support === "required" || (support && asTask)) {
          await runTask(t, args, uri, t0);
          return;
        }
        const result = await client.callTool({ name: t.name, arguments: args });
        setOutcome({ result, ms: Math.round(performance.now() - t0) });
        if (uri) await hostRef.current?.setResult(result);
      } catch (e) {
        const msg = String((e as Error)?.message ?? e);
        if (/session not found/i.test(msg)) setConnError("the server no longer knows this session (did mcpgen dev restart?)");
        const problem = authProblem(e);
        if (problem) setAuth({ problem, detail: msg });
        setOutcome({ error: msg, ms: Math.round(performance.now() - t0) });
        if (uri) status("error", msg);
      } finally {
        setCalling(false);
      }
    },
    [client, status, asTask, runTask],
  );

  const showFixture = React.useCallback(
    (fx: Fixture) => {
      const t = listsRef.current.tools.find((x) => x.name === fx.tool);
      setSel({ kind: "tool", name: fx.tool });
      setBoth(fx.input ?? {});
      setOutcome({ result: fx.result, fixture: fx.name });
      setDetail(null);
      setRendered(true);
      setViewHeight(undefined);
      const q = new URLSearchParams(location.search);
      q.set("tool", fx.tool);
      q.set("fixture", fx.name);
      q.delete("call");
      q.delete("input");
      history.replaceState(null, "", "?" + q.toString());
      if (!t) {
        status("error", `fixture ${fx.file}: the server lists no tool ${fx.tool}`);
        return;
      }
      const uri = viewURI(t);
      if (!uri) {
        status("error", `fixture ${fx.file}: tool ${fx.tool} has no view (_meta.ui.resourceUri)`);
        return;
      }
      void hostRef.current?.load({ tool: t, uri, input: fx.input ?? {}, result: fx.result, calls: fx.calls });
    },
    [status],
  );

  // The deep link, once the lists (and the view host) are there.
  const deepLinked = React.useRef(false);
  React.useEffect(() => {
    // (After the config: it says whether to trace the call.)
    if (deepLinked.current || !client || !config || !hostRef.current || lists.tools.length === 0) return;
    const name = query.get("tool");
    if (!name) {
      deepLinked.current = true;
      return;
    }
    const fxName = query.get("fixture");
    if (fxName && !fixturesLoaded) return; // wait for the fixtures
    deepLinked.current = true;
    const t = lists.tools.find((x) => x.name === name);
    if (!t) {
      setNotice(`deep link: the server lists no tool ${name}`);
      status("error", `no tool ${name}`);
      return;
    }
    if (fxName) {
      const fx = fixtures.find((f) => f.tool === name && f.name === fxName);
      if (!fx) {
        setSel({ kind: "tool", name });
        setRendered(true);
        const file = `fixtures/${name}/${fxName}.json`;
        const why = fixtureDiags.filter((d) => d.file === file || d.file.endsWith("/" + file)).map((d) => d.text);
        status("error", why.length > 0 ? why.join("\n") : `no fixture ${file}`);
        return;
      }
      showFixture(fx);
      return;
    }
    let args: Record<string, unknown> | undefined;
    const raw = query.get("input");
    if (raw) {
      try {
        args = JSON.parse(raw);
      } catch (e) {
        setRawError(`deep link input: ${e}`);
      }
    }
    selectTool(t, args);
    if (query.get("call") === "1") void call(t, args ?? initial(t.inputSchema, t.inputSchema) ?? {});
  }, [client, lists, fixtures, fixturesLoaded, fixtureDiags, config, call, selectTool, showFixture, status]);

  const readResource = async (uri: string) => {
    if (!client) return;
    try {
      setDetail({ uri, loading: true });
      setDetail({ uri, result: await client.readResource({ uri }) });
    } catch (e) {
      setDetail({ uri, error: String(e) });
    }
  };

  const getPrompt = async (name: string, args: Record<string, string>) => {
    if (!client) return;
    try {
      setDetail({ prompt: name, result: await client.getPrompt({ name, arguments: args }) });
    } catch (e) {
      setDetail({ prompt: name, error: String(e) });
    }
  };

  const preset = presets[emu.host];
  const page = preset.page[emu.theme];
  const errorsShown = build && !build.ok && !overlayHidden && build.diagnostics.some((d) => d.severity === "error");
  const toolFixtures = fixtures.filter((f) => f.tool === sel?.name);
  const frameWidth = emu.mode === "pip" ? Math.min(360, preset.widths[emu.width]) : emu.mode === "fullscreen" ? undefined : preset.widths[emu.width];
  const frameHeight =
    emu.mode === "fullscreen" ? undefined : Math.min(viewHeight ?? 120, emu.mode === "pip" ? 320 : preset.maxHeight);

  return (
    <div className={`inspector theme-${emu.theme}`}>
      <header className="bar">
        <h1>
          mcpgen inspector <span className="muted">{config?.name ?? ""}</span>
        </h1>
        <div className="controls">
          <label>
            Host
            <select aria-label="Host" value={emu.host} onChange={(e) => setEmu({ ...emu, host: e.target.value as HostName })}>
              <option value="claude">Claude</option>
              <option value="chatgpt">ChatGPT</option>
            </select>
          </label>
          <label>
            Theme
            <select aria-label="Theme" value={emu.theme} onChange={(e) => setEmu({ ...emu, theme: e.target.value as Theme })}>
              <option value="light">light</option>
              <option value="dark">dark</option>
            </select>
          </label>
          <label>
            Display mode
            <select aria-label="Display mode" value={emu.mode} onChange={(e) => setEmu({ ...emu, mode: e.target.value as DisplayMode })}>
              <option value="inline">inline</option>
              <option value="fullscreen">fullscreen</option>
              <option value="pip">pip</option>
            </select>
          </label>
          <label>
            Width
            <select aria-label="Width" value={emu.width} onChange={(e) => setEmu({ ...emu, width: e.target.value as Width })}>
              <option value="desktop">desktop ({preset.widths.desktop}px)</option>
              <option value="tablet">tablet ({preset.widths.tablet}px)</option>
              <option value="mobile">mobile ({preset.widths.mobile}px)</option>
            </select>
          </label>
          <label>
            Locale
            <input aria-label="Locale" size={6} value={emu.locale} onChange={(e) => setEmu({ ...emu, locale: e.target.value })} />
          </label>
          <span className={"conn " + (connError ? "bad" : client ? "ok" : "")} title={connError}>
            {connError ? "not connected" : client ? "connected" : "connecting…"}
          </span>
          {connError && <button onClick={() => location.reload()}>Reconnect</button>}
          {getToken() && (
            <button
              onClick={async () => {
                await oauth.signOut();
                setToken("");
                location.reload();
              }}
            >
              Sign out
            </button>
          )}
        </div>
      </header>

      <nav className="side" aria-label="Server">
        {auth.problem ? <SignIn problem={auth.problem} detail={auth.detail} /> : connError && <p className="err">{connError}</p>}
        <h2>Tools</h2>
        <ul>
          {lists.tools.map((t) => (
            <li key={t.name}>
              <button aria-label={t.name} className={sel?.kind === "tool" && sel.name === t.name ? "item on" : "item"} onClick={() => selectTool(t)}>
                <span className="name">{t.name}</span>
                {viewURI(t) && <span className="badge">view</span>}
                {tasks.taskSupport(t) && <span className="badge">task</span>}
                <Annotations a={t.annotations} />
              </button>
            </li>
          ))}
          {client && lists.tools.length === 0 && <li className="muted">none</li>}
        </ul>
        {fixtures.length > 0 && (
          <>
            <h2>Fixtures</h2>
            <ul>
              {fixtures.map((f) => (
                <li key={f.file}>
                  <button aria-label={`fixture ${f.tool}/${f.name}`} className="item" title={f.file} onClick={() => showFixture(f)}>
                    <span className="name">{f.tool}</span> / {f.name}
                  </button>
                </li>
              ))}
            </ul>
          </>
        )}
        {fixtureDiags.map((d) => (
          <p key={d.text} className="err small">{d.text}</p>
        ))}
        <h2>Resources</h2>
        <ul>
          {lists.resources.map((r) => (
            <li key={r.uri}>
              <button aria-label={r.uri} className={sel?.kind === "resource" && sel.name === r.uri ? "item on" : "item"}
                onClick={() => { setSel({ kind: "resource", name: r.uri }); void readResource(r.uri); }}>
                <span className="name">{r.name}</span> <span className="muted small">{r.uri}</span>
              </button>
            </li>
          ))}
          {client && lists.resources.length === 0 && <li className="muted">none</li>}
        </ul>
        <h2>Templates</h2>
        <ul>
          {lists.templates.map((r) => (
            <li key={r.uriTemplate}>
              <button aria-label={r.uriTemplate} className={sel?.kind === "template" && sel.name === r.uriTemplate ? "item on" : "item"}
                onClick={() => { setSel({ kind: "template", name: r.uriTemplate }); setDetail(null); }}>
                <span className="name">{r.name}</span> <span className="muted small">{r.uriTemplate}</span>
              </button>
            </li>
          ))}
          {client && lists.templates.length === 0 && <li className="muted">none</li>}
        </ul>
        <h2>Prompts</h2>
        <ul>
          {lists.prompts.map((p) => (
            <li key={p.name}>
              <button aria-label={p.name} className={sel?.kind === "prompt" && sel.name === p.name ? "item on" : "item"}
                onClick={() => { setSel({ kind: "prompt", name: p.name }); setDetail(null); }}>
                <span className="name">{p.name}</span>
              </button>
            </li>
          ))}
          {client && lists.prompts.length === 0 && <li className="muted">none</li>}
        </ul>
      </nav>

      <main className="main">
        {notice && <p className="err">{notice}</p>}
        {!sel && !notice && <p className="muted intro">Choose a tool, resource or prompt on the left.</p>}
        {tool && (
          <section className="tool" aria-label={`tool ${tool.name}`}>
            <h2>
              {tool.name} {tool.title && <span className="muted">{tool.title}</span>}
            </h2>
            <Annotations a={tool.annotations} long />
            {tool.description && <p className="desc">{tool.description}</p>}
            <div className="tabs" role="tablist">
              <button role="tab" aria-selected={tab === "form"} onClick={() => setTab("form")}>Form</button>
              <button role="tab" aria-selected={tab === "json"} onClick={() => { setRaw(JSON.stringify(input, null, 2)); setTab("json"); }}>JSON</button>
            </div>
            <form className="args" onSubmit={(e) => { e.preventDefault(); void call(tool, input); }}>
              {tab === "form" ? (
                <Fields schema={schema} root={schema} value={input} path="" errors={errors} onChange={setInput} />
              ) : (
                <textarea aria-label="arguments (JSON)" className={"raw" + (rawError ? " bad" : "")} rows={10} value={raw}
                  onChange={(e) => {
                    setRaw(e.target.value);
                    try {
                      const v = JSON.parse(e.target.value);
                      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("arguments are a JSON object");
                      setInput(v);
                      setRawError("");
                    } catch (err) {
                      setRawError(String((err as Error).message));
                    }
                  }} />
              )}
              {rawError && <p className="err">{rawError}</p>}
              {Object.keys(errors).length > 0 && tab === "json" && (
                <ul className="err">{Object.entries(errors).map(([k, v]) => <li key={k}>{k}: {v}</li>)}</ul>
              )}
              <div className="actions">
                <button type="submit" className="primary" disabled={calling || !!rawError}>Call</button>
                {tasks.taskSupport(tool) && (
                  <label className="small" title="the tool may run as an MCP task: the call answers at once with a task to follow">
                    <input type="checkbox" aria-label="Run as a task" checked={tasks.taskSupport(tool) === "required" || asTask}
                      disabled={tasks.taskSupport(tool) === "required"} onChange={(e) => setAsTask(e.target.checked)} />
                    {" "}as a task{tasks.taskSupport(tool) === "required" ? " (required)" : ""}
                  </label>
                )}
                {calling && <span className="muted">calling…</span>}
                {toolFixtures.length > 0 && (
                  <span className="muted small">
                    fixtures: {toolFixtures.map((f) => (
                      <button key={f.name} type="button" className="link" onClick={() => showFixture(f)}>{f.name}</button>
                    ))}
                  </span>
                )}
              </div>
            </form>
            {task && task.tool === tool.name && (
              <div className="task" aria-label="task" data-testid="task" data-task-status={task.status} data-task-id={task.id}>
                <span className={"badge" + (task.status === "completed" ? " good" : tasks.final(task.status) ? " warn" : "")}>{task.status}</span>
                <span data-testid="task-message">{task.message}</span>
                <span className="muted small">task {task.id}</span>
                {!tasks.final(task.status) && (
                  <button type="button" onClick={() => void cancelTask(task.id)}>Cancel task</button>
                )}
              </div>
            )}
          </section>
        )}
        {sel?.kind === "resource" && detail && <Detail d={detail} />}
        {sel?.kind === "template" && (
          <TemplateForm t={lists.templates.find((x) => x.uriTemplate === sel.name)} onRead={readResource} detail={detail} />
        )}
        {sel?.kind === "prompt" && (
          <PromptForm p={lists.prompts.find((x) => x.name === sel.name)} onGet={getPrompt} detail={detail} />
        )}
        <section className={"stage mode-" + emu.mode + (rendered && tool && viewURI(tool) ? "" : " hidden")}
          style={{ background: page.background, color: page.text }} aria-label="host">
          <div className="stage-head">
            <span>
              {preset.label} · {emu.theme} · {emu.mode}
              {emu.mode === "fullscreen" ? "" : ` · ${frameWidth}px, up to ${emu.mode === "pip" ? 320 : preset.maxHeight}px high`}
            </span>
            {emu.mode !== "inline" && (
              <button className="link" onClick={() => setEmu({ ...emu, mode: "inline" })}>back to inline</button>
            )}
          </div>
          <div
            id="view"
            className={border ? "view bordered" : "view"}
            ref={stageRef}
            data-app-status={appStatus === "idle" ? "loading" : appStatus}
            data-app-error={appError || undefined}
            data-host={emu.host}
            data-theme={emu.theme}
            data-mode={emu.mode}
            style={{
              width: frameWidth,
              height: frameHeight,
              borderRadius: preset.radius.lg,
              background: preset.colors[emu.theme]["--color-background-primary"],
            }}
          />
          {appStatus === "error" && <p className="err">view: {appError}</p>}
          {hostEvents.length > 0 && (
            <ul className="host-events" aria-label="What the view asked of the host">
              {hostEvents.map((e) => (
                <li key={e.seq}><span className="badge">{e.kind}</span> {e.text}</li>
              ))}
            </ul>
          )}
        </section>
        {tool && outcome && <Outcome o={outcome} />}
      </main>

      <ProtocolPanel />

      {question && <Question q={question} />}
      {sampling && <SamplingDialog s={sampling} />}

      {errorsShown && (
        <div className="overlay" role="alertdialog" aria-label="Build errors">
          <div className="overlay-box">
            <OverlayHead diagnostics={build!.diagnostics} />
            <ul>
              {build!.diagnostics.map((d, i) => (
                <li key={i} className={d.severity}>
                  <code className="pos">{d.file}:{d.line}:{d.col}</code>: {d.message}
                  {d.hint && <div className="hint">{d.hint}</div>}
                </li>
              ))}
            </ul>
            <button onClick={() => setOverlayHidden(true)}>Dismiss</button>
          </div>
        </div>
      )}
    </div>
  );
}

// Question is the dialog for a server's elicitation/create: its message and
// a form generated from the requested schema.
function Question({ q }: { q: { params: any; answer: (r: any) => void } }) {
  const schema = q.params?.requestedSchema ?? { type: "object", properties: {} };
  const [value, setValue] = React.useState<Record<string, unknown>>(() => initial(schema, schema) ?? {});
  const errors = validate(schema, value, schema);
  return (
    <div className="overlay" role="dialog" aria-label="The server asks">
      <form className="overlay-box question" onSubmit={(e) => { e.preventDefault(); q.answer({ action: "accept", content: value }); }}>
        <h2>The server asks</h2>
        <p>{q.params?.message}</p>
        <Fields schema={schema} root={schema} value={value} path="" errors={errors} onChange={setValue} />
        <div className="actions">
          <button type="submit" className="primary" disabled={Object.keys(errors).length > 0}>Accept</button>
          <button type="button" onClick={() => q.answer({ action: "decline" })}>Decline</button>
          <button type="button" onClick={() => q.answer({ action: "cancel" })}>Cancel</button>
        </div>
      </form>
    </div>
  );
}

// SamplingDialog shows what the server asks the model
// (sampling/createMessage) and sends back the reply the user types.
function SamplingDialog({ s }: { s: { params: any; answer: (text: string | null) => void } }) {
  const [text, setText] = React.useState("");
  const msgs: any[] = s.params?.messages ?? [];
  return (
    <div className="overlay" role="dialog" aria-label="The server asks the model">
      <form className="overlay-box question" onSubmit={(e) => { e.preventDefault(); s.answer(text); }}>
        <h2>The server asks the model</h2>
        {s.params?.systemPrompt && <p className="muted">system: {s.params.systemPrompt}</p>}
        {msgs.map((m, i) => (
          <p key={i}>
            <span className="badge">{m.role}</span>{" "}
            {[].concat(m.content ?? []).map((c: any) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ")}
          </p>
        ))}
        <label className="field">
          <span className="fname">reply</span>
          <textarea aria-label="reply" rows={4} value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <div className="actions">
          <button type="submit" className="primary">Send reply</button>
          <button type="button" onClick={() => s.answer(null)}>Decline</button>
        </div>
      </form>
    </div>
  );
}

// summarize renders what a view asked of its host in one line.
function summarize(kind: string, d: any): string {
  switch (kind) {
    case "open-link":
      return d?.url ?? "";
    case "message":
      return (d?.content ?? []).map((c: any) => c.text ?? `[${c.type}]`).join(" ");
    case "update-model-context":
      return JSON.stringify(d?.structuredContent ?? d?.content ?? d).slice(0, 200);
    case "request-display-mode":
      return d?.mode ?? "";
    case "log":
      return `${d?.level ?? ""} ${typeof d?.data === "string" ? d.data : JSON.stringify(d?.data)}`.slice(0, 200);
  }
  return JSON.stringify(d).slice(0, 200);
}

function Annotations({ a, long }: { a?: any; long?: boolean }) {
  if (!a) return long ? <p className="ann muted small">no annotations</p> : null;
  const flags = [
    a.readOnlyHint && "read-only",
    a.destructiveHint === false ? !a.readOnlyHint && "non-destructive" : a.destructiveHint && "destructive",
    a.idempotentHint && "idempotent",
    a.openWorldHint === false ? "closed-world" : a.openWorldHint && "open-world",
  ].filter(Boolean) as string[];
  if (!long) return flags.includes("destructive") ? <span className="badge warn">destructive</span> : null;
  return (
    <p className="ann">
      {flags.map((f) => <span key={f} className={"badge" + (f === "destructive" ? " warn" : "")}>{f}</span>)}
      {a.title && <span className="muted small"> {a.title}</span>}
    </p>
  );
}

function Outcome({ o }: { o: CallOutcome }) {
  if (o.error) {
    return (
      <section className="outcome" aria-label="result">
        <p className="err">call failed: {o.error}</p>
      </section>
    );
  }
  const r = o.result ?? {};
  const size = new TextEncoder().encode(JSON.stringify(r)).length;
  const tokens = estimateTokens(r);
  const level = tokens > TOKEN_CAP ? "over" : tokens > TOKEN_WARN ? "warn" : "ok";
  return (
    <section className="outcome" aria-label="result">
      <p className="stats">
        {o.fixture ? <span className="badge">fixture {o.fixture}</span> : null}
        <span className={"badge " + (r.isError ? "warn" : "good")}>isError: {String(!!r.isError)}</span>
        {o.ms !== undefined && <span>{o.ms} ms</span>}
        <span>{bytes(size)}</span>
        <span className={"tokens " + level} title="estimated at 4 characters per token; hosts warn at 10k and cut at 25k">
          ≈ {tokens.toLocaleString()} tokens of {TOKEN_CAP.toLocaleString()}
          {level === "warn" && " — over the 10k warning"}
          {level === "over" && " — over the 25k cap: hosts truncate this"}
        </span>
      </p>
      <h3>content</h3>
      {(r.content ?? []).map((c: any, i: number) => <ContentItem key={i} c={c} />)}
      {r.structuredContent !== undefined && (
        <>
          <h3>structuredContent</h3>
          <pre>{JSON.stringify(r.structuredContent, null, 2)}</pre>
        </>
      )}
      {r._meta !== undefined && (
        <>
          <h3>_meta</h3>
          <pre>{JSON.stringify(r._meta, null, 2)}</pre>
        </>
      )}
    </section>
  );
}

function ContentItem({ c }: { c: any }) {
  switch (c.type) {
    case "text":
      return <pre className="text">{c.text}</pre>;
    case "image":
      return <img alt="image content" src={`data:${c.mimeType};base64,${c.data}`} className="img" />;
    case "audio":
      return <audio controls src={`data:${c.mimeType};base64,${c.data}`} />;
    default:
      return <pre>{JSON.stringify(c, null, 2)}</pre>;
  }
}

function Detail({ d }: { d: any }) {
  if (d.loading) return <p className="muted">reading…</p>;
  if (d.error) return <p className="err">{d.error}</p>;
  return (
    <section className="outcome" aria-label="resource">
      <h2>{d.uri ?? d.prompt}</h2>
      <pre>{JSON.stringify(d.result, null, 2)}</pre>
    </section>
  );
}

function TemplateForm({ t, onRead, detail }: { t?: any; onRead(uri: string): void; detail: any }) {
  const [uri, setUri] = React.useState(t?.uriTemplate ?? "");
  React.useEffect(() => setUri(t?.uriTemplate ?? ""), [t]);
  if (!t) return null;
  return (
    <section className="tool">
      <h2>{t.name} <span className="muted">{t.uriTemplate}</span></h2>
      {t.description && <p className="desc">{t.description}</p>}
      <form className="args" onSubmit={(e) => { e.preventDefault(); onRead(uri); }}>
        <div className="field">
          <label htmlFor="tmpl-uri"><span className="fname">uri</span></label>
          <input id="tmpl-uri" aria-label="uri" value={uri} onChange={(e) => setUri(e.target.value)} />
        </div>
        <div className="actions"><button type="submit" className="primary">Read</button></div>
      </form>
      {detail && <Detail d={detail} />}
    </section>
  );
}

function PromptForm({ p, onGet, detail }: { p?: any; onGet(name: string, args: Record<string, string>): void; detail: any }) {
  const [args, setArgs] = React.useState<Record<string, string>>({});
  React.useEffect(() => setArgs({}), [p]);
  if (!p) return null;
  return (
    <section className="tool">
      <h2>{p.name} {p.title && <span className="muted">{p.title}</span>}</h2>
      {p.description && <p className="desc">{p.description}</p>}
      <form className="args" onSubmit={(e) => { e.preventDefault(); onGet(p.name, args); }}>
        {(p.arguments ?? []).map((a: any) => (
          <div className="field" key={a.name}>
            <label htmlFor={"p-" + a.name}>
              <span className="fname">{a.name}</span>
              {a.required && <span className="req" aria-hidden="true">*</span>}
            </label>
            <input id={"p-" + a.name} aria-label={a.name} value={args[a.name] ?? ""} onChange={(e) => setArgs({ ...args, [a.name]: e.target.value })} />
            {a.description && <p className="desc">{a.description}</p>}
          </div>
        ))}
        <div className="actions"><button type="submit" className="primary">Get</button></div>
      </form>
      {detail && <Detail d={detail} />}
    </section>
  );
}

function ProtocolPanel() {
  const entries = React.useSyncExternalStore(protocol.subscribe, protocol.all);
  const [filter, setFilter] = React.useState<"all" | protocol.Channel>("all");
  const [open, setOpen] = React.useState<number | null>(null);
  const [copied, setCopied] = React.useState(false);
  const shown = filter === "all" ? entries : entries.filter((e) => e.channel === filter);
  const copy = async () => {
    const text = JSON.stringify(shown, null, 2);
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const ta = document.createElement("textarea");
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand("copy");
      ta.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1200);
  };
  return (
    <aside className="protocol" aria-label="Protocol">
      <div className="protocol-head">
        <h2>Protocol</h2>
        <select aria-label="Channel" value={filter} onChange={(e) => setFilter(e.target.value as any)}>
          <option value="all">all</option>
          <option value="server">server (JSON-RPC)</option>
          <option value="view">view (postMessage)</option>
        </select>
        <button onClick={copy}>{copied ? "Copied" : "Copy"}</button>
        <button onClick={() => protocol.clear()}>Clear</button>
      </div>
      <ol className="log">
        {shown.map((e) => (
          <li key={e.seq} className={`${e.channel} ${e.dir}`}>
            <button className="entry" onClick={() => setOpen(open === e.seq ? null : e.seq)}>
              <span className="at">{e.at}ms</span>
              <span className="ch">{e.channel === "server" ? "server" : "view"}</span>
              <span className="dir">{e.dir === "send" ? "→" : "←"}</span>
              <span className="what">{protocol.describe(e.message)}</span>
            </button>
            {open === e.seq && e.traceId && <Trace id={e.traceId} />}
            {open === e.seq && <pre>{JSON.stringify(e.message, null, 2)}</pre>}
          </li>
        ))}
      </ol>
    </aside>
  );
}

interface TraceSpan {
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: string;
  startUnixNano: string;
  endUnixNano: string;
  status?: string;
  statusMessage?: string;
  attributes?: Record<string, unknown>;
}

// Trace shows the spans the connector exported for one request, as a
// waterfall: each span under its parent, its bar where and as long as it
// ran. The connector exports in batches, so it asks again until the spans
// stop coming.
function Trace({ id }: { id: string }) {
  const [spans, setSpans] = React.useState<TraceSpan[] | null>(null);
  React.useEffect(() => {
    let stop = false;
    let last = -1;
    let steady = 0;
    const poll = async (n: number) => {
      try {
        const r = await fetch(`/_mcpgen/traces/${id}`);
        const t = (await r.json()) as { spans: TraceSpan[] };
        if (stop) return;
        setSpans(t.spans);
        steady = t.spans.length === last && t.spans.length > 0 ? steady + 1 : 0;
        last = t.spans.length;
      } catch {
        // the next poll tries again
      }
      if (!stop && n < 20 && steady < 2) setTimeout(() => poll(n + 1), 250);
    };
    poll(0);
    return () => {
      stop = true;
    };
  }, [id]);
  if (spans === null) return <div className="trace muted">trace {id}: loading…</div>;
  if (spans.length === 0) return <div className="trace muted">trace {id}: no spans yet (is OpenTelemetry configured elsewhere?)</div>;
  const t0 = spans.reduce((m, s) => (BigInt(s.startUnixNano) < m ? BigInt(s.startUnixNano) : m), BigInt(spans[0].startUnixNano));
  const t1 = spans.reduce((m, s) => (BigInt(s.endUnixNano) > m ? BigInt(s.endUnixNano) : m), BigInt(spans[0].endUnixNano));
  const total = Number(t1 - t0) || 1;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const depth = (s: TraceSpan): number => {
    let d = 0;
    for (let p = s.parentSpanId && byId.get(s.parentSpanId); p && d < 32; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) d++;
    return d;
  };
  return (
    <div className="trace" aria-label="Trace">
      <div className="muted">trace {id}</div>
      <ol>
        {spans.map((s) => {
          const start = Number(BigInt(s.startUnixNano) - t0);
          const dur = Number(BigInt(s.endUnixNano) - BigInt(s.startUnixNano));
          return (
            <li key={s.spanId} className={`span ${s.status ?? ""}`} title={JSON.stringify(s.attributes ?? {}, null, 2)}>
              <span className="span-name" style={{ paddingLeft: `${depth(s) * 10}px` }}>
                {s.name}
                {s.status === "error" && s.statusMessage ? ` (${s.statusMessage})` : ""}
              </span>
              <span className="span-bar">
                <span style={{ left: `${(100 * start) / total}%`, width: `${Math.max(0.5, (100 * dur) / total)}%` }} />
              </span>
              <span className="span-dur">{(dur / 1e6).toFixed(2)} ms</span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

// SignIn asks for the bearer token a server run with --auth-issuer wants,
// saying what the server refused and what to do about it. The token is kept
// in this tab's sessionStorage and sent with every request.
function SignIn({ problem, detail }: { problem: AuthProblem; detail: string }) {
  const [token, setValue] = React.useState("");
  const [oauthError, setOAuthError] = React.useState("");
  const [starting, setStarting] = React.useState(false);
  const had = getToken() !== "";
  // A 401 naming its protected-resource metadata (RFC 9728) means the
  // server can say where to sign in: the inspector offers to do it.
  const challenge = oauth.lastChallenge();
  const canOAuth = problem === "unauthorized" && !!challenge?.resourceMetadata;
  let why: string;
  if (problem === "forbidden") {
    why =
      "The server refused this request (403, insufficient scope): the token lacks a scope the tool, resource or prompt declares. " +
      "Get a token that grants it from your authorization server and paste it here.";
  } else if (had) {
    why =
      "The server refused the token (401): it expired, or its issuer or audience is not the ones the server checks " +
      "(--auth-issuer, --public-url). Get a new one from your authorization server and paste it here.";
  } else {
    why =
      "The server requires a bearer token (it runs with --auth-issuer or --auth-upstream). Get an access token for it from your authorization " +
      "server (see docs/auth.md) and paste it here.";
  }
  return (
    <form
      className="signin"
      aria-label="Sign in"
      onSubmit={(e) => {
        e.preventDefault();
        setToken(token.trim());
        location.reload();
      }}
    >
      <h2>Sign in</h2>
      <p className="err">{why}</p>
      {canOAuth && (
        <div className="oauth">
          <p className="muted">
            The server names its authorization server ({challenge!.resourceMetadata}): the inspector can register itself there and sign you in
            (authorization code with PKCE), then refresh the token when it expires.
          </p>
          <button
            type="button"
            disabled={starting}
            onClick={() => {
              setStarting(true);
              setOAuthError("");
              oauth.signIn().catch((e) => {
                setOAuthError(String(e?.message ?? e));
                setStarting(false);
              });
            }}
          >
            Sign in with OAuth
          </button>
          {oauthError && (
            <p className="err" data-testid="oauth-error">
              {oauthError}
            </p>
          )}
          <p className="muted">Or paste a token:</p>
        </div>
      )}
      <p className="muted">
        The token stays in this tab (sessionStorage) and goes with every request as <code>Authorization: Bearer</code>. ({detail})
      </p>
      <textarea aria-label="bearer token" rows={3} value={token} onChange={(e) => setValue(e.target.value)} placeholder="eyJhbGciOi…" />
      <button type="submit" disabled={token.trim() === ""}>
        Sign in
      </button>
    </form>
  );
}

// OverlayHead says what the errors of the overlay mean for what serves: a
// failed build leaves the last good build serving; a type error in a view
// stops nothing (the view is bundled and serves as it is).
function OverlayHead({ diagnostics }: { diagnostics: Diag[] }) {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const typeOnly = errors.every((d) => d.stage === "types");
  const someTypes = errors.some((d) => d.stage === "types");
  if (typeOnly) {
    return (
      <>
        <h2>Type errors in the views</h2>
        <p className="muted">
          The views still serve as they are: a type error does not stop a view from bundling (mcpgen build does refuse it). Fix these and save:
        </p>
      </>
    );
  }
  return (
    <>
      <h2>Build failed</h2>
      <p className="muted">
        The last good build keeps serving{someTypes ? "; the views with type errors serve as they are" : ""}. Fix these and save:
      </p>
    </>
  );
}
