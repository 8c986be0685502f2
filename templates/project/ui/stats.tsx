//mcpgen:view border title="Text statistics"
import { useState } from "react";
import { useApp, useToolData, useToolInput } from "mcpgen/ui";
import "./stats.css";

// TextStatsInput and TextStatsOutput are declared in ui/mcpgen.d.ts, which
// mcpgen generates from the Go types in textstats.go.
type Stats = TextStatsOutput;
type Rank = NonNullable<TextStatsInput["rank"]>;

// Stats is the view of the text_stats tool: mcpgen links it through the
// tool's ui=stats option and mounts this default export in the host.
export default function StatsView() {
  const first = useToolData<Stats>();
  const input = useToolInput<TextStatsInput>();
  const app = useApp();
  const [ranked, setRanked] = useState<{ rank: Rank; stats: Stats }>();
  const [error, setError] = useState<string>();

  if (!first) return <div className="stats muted">Counting…</div>;
  const rank = ranked?.rank ?? input?.rank ?? "word";
  const stats = ranked?.stats ?? first;
  const top = stats.top ?? []; // a Go slice may be nil
  const max = Math.max(1, ...top.map((f) => f.count));

  // Re-rank by calling the tool again from the view.
  async function rerank(next: Rank) {
    setError(undefined);
    try {
      const res = await app.callTool<Stats>("text_stats", { ...input, rank: next });
      if (res.isError || !res.structuredContent) throw new Error(res.content[0]?.text ?? "text_stats failed");
      setRanked({ rank: next, stats: res.structuredContent });
    } catch (e) {
      setError(String(e));
    }
  }

  const minutes = Math.floor(stats.readingTimeSeconds / 60);
  const seconds = stats.readingTimeSeconds % 60;
  return (
    <div className="stats">
      <dl className="figures">
        <div><dt>words</dt><dd>{stats.words}</dd></div>
        <div><dt>sentences</dt><dd>{stats.sentences}</dd></div>
        <div><dt>paragraphs</dt><dd>{stats.paragraphs}</dd></div>
        <div><dt>reading time</dt><dd>{minutes > 0 ? `${minutes} min ` : ""}{seconds} s</dd></div>
      </dl>
      <div className="tabs" role="tablist">
        {(["word", "letter", "bigram"] as Rank[]).map((r) => (
          <button key={r} role="tab" aria-selected={r === rank} onClick={() => rerank(r)}>
            {r === "bigram" ? "word pairs" : `${r}s`}
          </button>
        ))}
      </div>
      <ol className="bars">
        {top.map((f) => (
          <li key={f.unit}>
            <span className="unit">{f.unit}</span>
            <span className="bar" style={{ width: `${(100 * f.count) / max}%` }} />
            <span className="count">{f.count}</span>
          </li>
        ))}
      </ol>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}
