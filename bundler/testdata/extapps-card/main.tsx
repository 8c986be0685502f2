import { useState } from "react";
import { createRoot } from "react-dom/client";
import { useApp, useHostStyles } from "@modelcontextprotocol/ext-apps/react";
import type { McpUiDisplayMode } from "@modelcontextprotocol/ext-apps";
import "./card.css";

interface Greeting {
  message: string;
  count: number;
}

function Card() {
  const [greeting, setGreeting] = useState<Greeting>();
  const [input, setInput] = useState<{ name: string }>();
  const [mode, setMode] = useState<McpUiDisplayMode>("inline");
  const [again, setAgain] = useState<Greeting>();
  const [error, setError] = useState<string>();
  const { app } = useApp({
    appInfo: { name: "card", version: "1.0.0" },
    capabilities: { availableDisplayModes: ["inline", "fullscreen", "pip"] },
    onAppCreated: (app) => {
      app.ontoolresult = (r) => setGreeting(r.structuredContent as unknown as Greeting);
      app.ontoolinput = (p) => setInput(p.arguments as { name: string });
      app.onhostcontextchanged = (c) => c.displayMode && setMode(c.displayMode);
    },
  });
  useHostStyles(app, app?.getHostContext());

  if (!greeting || !app) return <div className="card muted">Waiting for the greeting…</div>;

  async function greetAgain() {
    try {
      const res = await app!.callServerTool({ name: "greet", arguments: { name: input?.name ?? "again" } });
      setAgain(res.structuredContent as unknown as Greeting);
    } catch (e) {
      setError(String(e));
    }
  }

  async function toggle() {
    const res = await app!.requestDisplayMode({ mode: mode === "fullscreen" ? "inline" : "fullscreen" });
    setMode(res.mode);
  }

  return (
    <div className="card">
      <h1>{greeting.message}</h1>
      <p className="muted">Greeted {greeting.count} time(s)</p>
      <div className="actions">
        <button onClick={greetAgain}>Greet again</button>
        <button onClick={toggle}>{mode === "fullscreen" ? "Exit full screen" : "Full screen"}</button>
      </div>
      {again && <p role="status">Again: {again.message} (#{again.count})</p>}
      {error && <p role="alert">{error}</p>}
      <p className="muted">Display mode: {mode}</p>
    </div>
  );
}

createRoot(document.getElementById("root")!).render(<Card />);
