//mcpgen:view noborder connect=https://api.example.com permissions=clipboardWrite
// A view that exercises every action of mcpgen/ui against a host.
import { useEffect, useState } from "react";
import {
  onTeardown,
  useApp,
  useConnected,
  useHostContext,
  useToolCancelled,
  useToolInput,
  useToolInputPartial,
  useToolResult,
} from "mcpgen/ui";

export default function Probe() {
  const app = useApp();
  const host = useHostContext();
  const connected = useConnected();
  const input = useToolInput<{ name: string }>();
  const result = useToolResult();
  const partial = useToolInputPartial<{ name: string }>();
  const cancelled = useToolCancelled();
  useEffect(() => onTeardown(() => app.log("info", "torn down")), [app]);
  const [log, setLog] = useState<string[]>([]);
  const note = (s: string) => setLog((l) => [...l, s]);
  const uri = ((host.toolInfo?.tool._meta as any)?.ui?.resourceUri ?? "") as string;

  return (
    <main>
      <p>connected: {String(connected)}</p>
      <p>theme: {host.theme}</p>
      <p>locale: {host.locale}</p>
      <p>input: {input?.name}</p>
      <p>result text: {result?.content[0]?.text}</p>
      <p>partial: {partial?.name}</p>
      <p>cancelled: {cancelled ? cancelled.reason : "no"}</p>
      <button onClick={() => app.openLink("https://example.com/docs").then(() => note("link opened"))}>Open link</button>
      <button onClick={() => app.sendMessage("Show more orders").then(() => note("message sent"))}>Send message</button>
      <button onClick={() => app.updateModelContext("The user picked order 7").then(() => note("context updated"))}>Update context</button>
      <button
        onClick={() =>
          app.readResource(uri).then((r) => note(`read ${r.contents[0]?.mimeType} ${(r.contents[0]?.text?.length ?? 0) > 1000 ? "big" : "small"}`))
        }
      >
        Read resource
      </button>
      <button onClick={() => app.callTool("missing_tool", {}).then((r) => note(`missing: isError=${r.isError}`), (e) => note(`missing: ${e.name}`))}>
        Call missing
      </button>
      <button onClick={() => (app.log("info", { probe: true }), note("logged"))}>Log</button>
      <ul>
        {log.map((l, i) => (
          <li key={i}>{l}</li>
        ))}
      </ul>
    </main>
  );
}
