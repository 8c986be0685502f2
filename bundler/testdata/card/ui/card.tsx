//mcpgen:view border title="Greeting card"
import { useState } from "react";
import { useApp, useDisplayMode, useToolData, useToolInput } from "mcpgen/ui";
import "./card.css";

// The structured result of the greet tool. With `mcpgen generate`, the
// declarations in ui/mcpgen.d.ts give it as GreetOutput.
interface Greeting {
  message: string;
  count: number;
}

export default function Card() {
  const greeting = useToolData<Greeting>();
  const input = useToolInput<{ name: string }>();
  const mode = useDisplayMode();
  const app = useApp();
  const [again, setAgain] = useState<Greeting>();
  const [error, setError] = useState<string>();

  if (!greeting) return <div className="card muted">Waiting for the greeting…</div>;

  async function greetAgain() {
    try {
      const res = await app.callTool<Greeting>("greet", { name: input?.name ?? "again" });
      setAgain(res.structuredContent);
    } catch (e) {
      setError(String(e));
    }
  }

  return (
    <div className="card">
      <h1>{greeting.message}</h1>
      <p className="muted">Greeted {greeting.count} time(s)</p>
      <div className="actions">
        <button onClick={greetAgain}>Greet again</button>
        <button onClick={() => app.requestDisplayMode(mode === "fullscreen" ? "inline" : "fullscreen")}>
          {mode === "fullscreen" ? "Exit full screen" : "Full screen"}
        </button>
      </div>
      {again && <p role="status">Again: {again.message} (#{again.count})</p>}
      {error && <p role="alert">{error}</p>}
      <p className="muted">Display mode: {mode}</p>
    </div>
  );
}
