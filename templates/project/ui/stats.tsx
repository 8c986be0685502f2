//mcpgen:view border title="Text statistics"
import { useState } from "react";
import { useApp, useDisplayMode, useToolData, useToolInput } from "mcpgen/ui";
import "./stats.css";

// TextStatsInput and TextStatsOutput are declared in ui/mcpgen.d.ts, which
// mcpgen generates from the Go types in textstats.go.
type Stats = TextStatsOutput;
type Rank = NonNullable<TextStatsInput["rank"]>;

const ranks: Record<Rank, string> = { word: "words", letter: "letters", bigram: "word pairs" };

// StatsView is the view of the text_stats tool: mcpgen links it through the
// tool's ui=stats option and mounts this default export in the host.
export default function StatsView() {
  const first = useToolData<Stats>(); // the tool result's structuredContent
  const input = useToolInput<TextStatsInput>(); // the arguments the model passed
  const app = useApp();
  const mode = useDisplayMode();
  const [ranked, setRanked] = useState<{ rank: Rank; stats: Stats }>();
  const [error, setError] = useState<string>();

  if (!first) return <p className="stats muted">Counting…</p>;
  const rank = ranked?.rank ?? input?.rank ?? "word";
  const stats = ranked?.stats ?? first;
  const top = stats.top ?? []; // a nil Go slice arrives as null
  const max = Math.max(1, ...top.map((f) => f.count));

  // Re-rank by calling the tool again from the view.
  async function rerank(next: Rank) {
    setError(undefined);
    try {
      if (!input) return;
      // Typed by the tool map in ui/mcpgen.d.ts: the arguments are checked
      // against TextStatsInput, the result is a TextStatsOutput.
      const res = await app.callTool("text_stats", { ...input, rank: next });
      if (res.isError || !res.structuredContent) throw new Error(res.content[0]?.text ?? "text_stats failed");
      setRanked({ rank: next, stats: res.structuredContent });
    } catch (e) {
      setError(String(e));
    }
  }

  const fullscreen = mode === "fullscreen";
  const toggle = () => app.requestDisplayMode(fullscreen ? "inline" : "fullscreen").catch((e) => setError(String(e)));
  const min = Math.floor(stats.readingTimeSeconds / 60);
  const sec = stats.readingTimeSeconds % 60;
  return (
    <div className="stats">
      <header>
        <span className="muted">
          {stats.characters.toLocaleString()} characters · {stats.averageWordLength} letters a word
        </span>
        <button className="ghost" onClick={toggle}>{fullscreen ? "Exit full screen" : "Full screen"}</button>
      </header>
      <dl className="kpis">
        <Kpi label="words" value={stats.words.toLocaleString()} />
        <Kpi label="sentences" value={stats.sentences.toLocaleString()} />
        <Kpi label="paragraphs" value={stats.paragraphs.toLocaleString()} />
        <Kpi label="reading time" value={min > 0 ? `${min} min ${sec} s` : `${sec} s`} />
      </dl>
      <section>
        <header>
          <h2>Top {ranks[rank]}</h2>
          <div className="segmented">
            {(Object.keys(ranks) as Rank[]).map((r) => (
              <button key={r} aria-pressed={r === rank} onClick={() => rerank(r)}>{ranks[r]}</button>
            ))}
          </div>
        </header>
        <ol className="bars">
          {top.map((f) => (
            <li key={f.unit}>
              <span className="unit">{f.unit}</span>
              <span className="track"><span className="bar" style={{ width: `${(100 * f.count) / max}%` }} /></span>
              <span className="count">{f.count}</span>
            </li>
          ))}
        </ol>
        {top.length === 0 && <p className="muted">Nothing left to rank.</p>}
      </section>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

function Kpi({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
