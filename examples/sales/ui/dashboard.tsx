//mcpgen:view border title="Sales dashboard"
//mcpgen:view description="Revenue, orders and best sellers of the coffee shop, with a drill-down into each product"
import { useEffect, useMemo, useRef, useState } from "react";
import { useApp, useDisplayMode, useHostContext, useToolData, useToolInput } from "mcpgen/ui";
import "./dashboard.css";

type Summary = SummarizeSalesOutput;
type Detail = DrillDownOutput;
type GroupBy = Summary["groupBy"];
type Point = { label: string; revenue: number };
type ProductRow = NonNullable<Summary["topProducts"]>[number];
type SortKey = "name" | "category" | "units" | "orders" | "revenue" | "share";

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const price = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const count = new Intl.NumberFormat("en-US");
const pct = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** $1.2M, $48k, $950: for axis labels. */
function compact(v: number): string {
  if (v >= 1e6) return `$${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)}M`;
  if (v >= 1e3) return `$${Math.round(v / 1e3)}k`;
  return `$${Math.round(v)}`;
}

function day(s: string): string {
  const d = new Date(s + "T00:00:00Z");
  return d.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
}

const regionNames: Record<Summary["region"], string> = {
  all: "All regions",
  north: "North",
  south: "South",
  east: "East",
  west: "West",
};

const groups: { value: GroupBy; label: string }[] = [
  { value: "week", label: "Week" },
  { value: "month", label: "Month" },
  { value: "quarter", label: "Quarter" },
];

/** The width of an element, following its resizes. */
function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(([e]) => setWidth(Math.max(200, Math.floor(e.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

/** Round axis steps: 1, 2 or 5 times a power of ten. */
function ticks(max: number, n = 4): number[] {
  if (max <= 0) return [0];
  const raw = max / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 0.999; v += step) out.push(v);
  return out;
}

function Chart({ points, kind, height = 180 }: { points: Point[]; kind: "bar" | "line"; height?: number }) {
  const [ref, width] = useWidth(520);
  const [hover, setHover] = useState<number>();
  const max = Math.max(0, ...points.map((p) => p.revenue));
  const ys = ticks(max, height > 150 ? 5 : 3);
  const top = ys[ys.length - 1] || 1;
  const left = 46;
  const bottom = 22;
  const plotW = width - left - 4;
  const plotH = height - bottom - 8;
  const slot = plotW / Math.max(1, points.length);
  const y = (v: number) => 8 + plotH - (v / top) * plotH;
  const x = (i: number) => left + slot * i + slot / 2;
  const every = Math.ceil(points.length / Math.floor(plotW / 34));
  const shown = hover;
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.revenue).toFixed(1)}`).join("");
  return (
    <div className="chart" ref={ref}>
      <svg width={width} height={height} role="img" aria-label={`Revenue, ${points.length} periods`} onMouseLeave={() => setHover(undefined)}>
        {ys.map((v) => (
          <g key={v}>
            <line className="grid" x1={left} x2={width - 4} y1={y(v)} y2={y(v)} />
            <text className="axis" x={left - 8} y={y(v) + 4} textAnchor="end">
              {compact(v)}
            </text>
          </g>
        ))}
        {kind === "line" && (
          <>
            <path className="area" d={`${path}L${x(points.length - 1)},${y(0)}L${x(0)},${y(0)}Z`} />
            <path className="line" d={path} />
          </>
        )}
        {points.map((p, i) => (
          <g key={p.label} onMouseEnter={() => setHover(i)}>
            <rect className="hit" x={left + slot * i} y={8} width={slot} height={plotH} />
            {kind === "bar" ? (
              <rect
                className={i === hover ? "bar hot" : "bar"}
                x={left + slot * i + Math.max(1, slot * 0.14)}
                y={y(p.revenue)}
                width={Math.max(1, slot * 0.72)}
                height={Math.max(0, y(0) - y(p.revenue))}
                rx={Math.min(4, slot * 0.2)}
              />
            ) : (
              i === hover && <circle className="dot" cx={x(i)} cy={y(p.revenue)} r={4} />
            )}
            {i % every === 0 && (
              <text className="axis" x={x(i)} y={height - 6} textAnchor="middle">
                {short(p.label)}
              </text>
            )}
          </g>
        ))}
      </svg>
      {shown !== undefined && points[shown] && (
        <div className="tip" style={{ left: Math.min(Math.max(x(shown) - 60, 0), width - 120) }}>
          <strong>{money.format(points[shown].revenue)}</strong>
          <span>{points[shown].label}</span>
        </div>
      )}
    </div>
  );
}

/** "Feb 2025" → "Feb", "2025-W07" → "W7", "Q1 2025" → "Q1 '25". */
function short(label: string): string {
  const w = /^\d{4}-W(\d+)$/.exec(label);
  if (w) return `W${Number(w[1])}`;
  const q = /^(Q\d) \d\d(\d\d)$/.exec(label);
  if (q) return `${q[1]} '${q[2]}`;
  return label.split(" ")[0];
}

function Kpi({ label, value, now, before }: { label: string; value: string; now: number; before?: number }) {
  let delta = <span className="delta flat">no earlier data</span>;
  if (before !== undefined && before > 0) {
    const d = (now - before) / before;
    delta = (
      <span className={d >= 0 ? "delta up" : "delta down"}>
        {d >= 0 ? "▲" : "▼"} {pct.format(Math.abs(d))} <span className="vs">vs prior</span>
      </span>
    );
  }
  return (
    <div className="kpi">
      <div className="kpi-label">{label}</div>
      <div className="kpi-value">{value}</div>
      {delta}
    </div>
  );
}

const columns: { key: SortKey; label: string; numeric: boolean }[] = [
  { key: "name", label: "Product", numeric: false },
  { key: "units", label: "Units", numeric: true },
  { key: "orders", label: "Orders", numeric: true },
  { key: "revenue", label: "Revenue", numeric: true },
  { key: "share", label: "Share", numeric: true },
];

function ProductTable({ rows, selected, busy, onDrill }: { rows: ProductRow[]; selected?: string; busy?: string; onDrill: (p: ProductRow) => void }) {
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: "revenue", desc: true });
  const sorted = useMemo(() => {
    const out = [...rows];
    out.sort((a, b) => {
      const av = a[sort.key];
      const bv = b[sort.key];
      const c = typeof av === "number" && typeof bv === "number" ? av - bv : String(av).localeCompare(String(bv));
      return sort.desc ? -c : c;
    });
    return out;
  }, [rows, sort]);
  const maxShare = Math.max(0.0001, ...rows.map((r) => r.share));
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c) => {
            const active = sort.key === c.key;
            return (
              <th key={c.key} className={`${c.numeric ? "num" : ""} col-${c.key}`} aria-sort={active ? (sort.desc ? "descending" : "ascending") : "none"}>
                <button
                  className={active ? "sort active" : "sort"}
                  aria-label={`Sort by ${c.label.toLowerCase()}`}
                  onClick={() => setSort({ key: c.key, desc: active ? !sort.desc : c.numeric })}
                >
                  {c.label}
                  <span className="arrow">{active ? (sort.desc ? "↓" : "↑") : ""}</span>
                </button>
              </th>
            );
          })}
          <th aria-label="Details" />
        </tr>
      </thead>
      <tbody>
        {sorted.map((r) => (
          <tr key={r.sku} className={r.sku === selected ? "selected" : ""}>
            <td>
              <div className="product">{r.name}</div>
              <div className="sku">
                {r.sku} · {r.category}
              </div>
            </td>
            <td className="num">{count.format(r.units)}</td>
            <td className="num col-orders">{count.format(r.orders)}</td>
            <td className="num strong">{money.format(r.revenue)}</td>
            <td className="num">
              <div className="share">
                <span className="share-bar" style={{ width: `${(r.share / maxShare) * 100}%` }} />
              </div>
              {pct.format(r.share)}
            </td>
            <td className="num">
              <button className="link" aria-label={`Drill down into ${r.name}`} disabled={busy !== undefined} onClick={() => onDrill(r)}>
                {busy === r.sku ? "…" : "Details"}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RegionBars({ regions }: { regions: NonNullable<Detail["regions"]> }) {
  const max = Math.max(1, ...regions.map((r) => r.revenue));
  return (
    <div className="regions">
      {regions.map((r) => (
        <div className="region" key={r.region}>
          <span className="region-name">{regionNames[r.region]}</span>
          <span className="region-track">
            <span className="region-bar" style={{ width: `${(r.revenue / max) * 100}%` }} />
          </span>
          <span className="region-value">{money.format(r.revenue)}</span>
        </div>
      ))}
    </div>
  );
}

function DetailPanel({ detail, onClose }: { detail: Detail; onClose: () => void }) {
  const p = detail.product;
  const discount = p.listPrice > 0 ? 1 - detail.averagePrice / p.listPrice : 0;
  return (
    <section className="card detail" aria-label={`${p.name} details`}>
      <header className="detail-head">
        <div>
          <h2>{p.name}</h2>
          <div className="sku">
            {p.sku} · {p.category} · list price {price.format(p.listPrice)}
          </div>
        </div>
        <button className="ghost" aria-label="Close details" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="facts">
        <div>
          <span>Revenue</span>
          <strong>{money.format(detail.totals.revenue)}</strong>
        </div>
        <div>
          <span>Units sold</span>
          <strong>{count.format(detail.totals.units)}</strong>
        </div>
        <div>
          <span>Avg. price paid</span>
          <strong>{price.format(detail.averagePrice)}</strong>
          {discount > 0.001 && <em>{pct.format(discount)} below list</em>}
        </div>
        <div>
          <span>Rank</span>
          <strong>#{detail.rank}</strong>
          <em>{pct.format(detail.share)} of revenue</em>
        </div>
      </div>
      <Chart kind="line" height={130} points={detail.series ?? []} />
      <h3>By region</h3>
      <RegionBars regions={detail.regions ?? []} />
    </section>
  );
}

export default function Dashboard() {
  const first = useToolData<Summary>();
  const input = useToolInput<SummarizeSalesInput>();
  const host = useHostContext();
  const mode = useDisplayMode();
  const app = useApp();
  const [summary, setSummary] = useState<Summary>();
  const [detail, setDetail] = useState<Detail>();
  const [loading, setLoading] = useState<string>();
  const [error, setError] = useState<string>();
  const data = summary ?? first;
  const theme = host.theme === "dark" ? "dark" : "light";

  if (!data) {
    return (
      <div className={`dash ${theme}`}>
        <p className="muted">Loading sales…</p>
      </div>
    );
  }
  const current = data;

  async function call<T>(what: string, tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    setLoading(what);
    setError(undefined);
    try {
      const res = await app.callTool<T>(tool, args);
      if (res.isError) throw new Error(res.content.map((c) => c.text ?? "").join(" ") || `${tool} failed`);
      return res.structuredContent;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return undefined;
    } finally {
      setLoading(undefined);
    }
  }

  async function regroup(groupBy: GroupBy) {
    const next = await call<Summary>(groupBy, "summarize_sales", {
      region: current.region,
      from: current.from,
      to: current.to,
      groupBy,
      top: input?.top ?? 5,
    });
    if (!next) return;
    setSummary(next);
    if (detail) {
      const d = await call<Detail>(detail.product.sku, "drill_down", { sku: detail.product.sku, region: next.region, from: next.from, to: next.to, groupBy });
      if (d) setDetail(d);
    }
  }

  async function drill(p: ProductRow) {
    const d = await call<Detail>(p.sku, "drill_down", {
      sku: p.sku,
      region: current.region,
      from: current.from,
      to: current.to,
      groupBy: current.groupBy,
    });
    if (d) setDetail(d);
  }

  const t = current.totals;
  const prev = current.previous;
  const unit = groups.find((g) => g.value === current.groupBy)?.label.toLowerCase() ?? current.groupBy;
  return (
    <div className={`dash ${theme} ${mode}`}>
      <header className="top">
        <div>
          <h1>Sales</h1>
          <div className="muted">
            {regionNames[current.region]} · {day(current.from)} – {day(current.to)}
          </div>
        </div>
        <div className="controls">
          <div className="segmented" role="group" aria-label="Group by">
            {groups.map((g) => (
              <button
                key={g.value}
                aria-pressed={g.value === current.groupBy}
                disabled={loading !== undefined}
                onClick={() => g.value !== current.groupBy && regroup(g.value)}
              >
                {loading === g.value ? "…" : g.label}
              </button>
            ))}
          </div>
          <button className="ghost" onClick={() => app.requestDisplayMode(mode === "fullscreen" ? "inline" : "fullscreen").catch((e) => setError(String(e)))}>
            {mode === "fullscreen" ? "Exit full screen" : "Full screen"}
          </button>
        </div>
      </header>

      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}

      <div className="kpis">
        <Kpi label="Revenue" value={money.format(t.revenue)} now={t.revenue} before={prev?.revenue} />
        <Kpi label="Orders" value={count.format(t.orders)} now={t.orders} before={prev?.orders} />
        <Kpi label="Units" value={count.format(t.units)} now={t.units} before={prev?.units} />
        <Kpi label="Avg. order" value={price.format(t.averageOrder)} now={t.averageOrder} before={prev?.averageOrder} />
      </div>

      <section className="card">
        <h2>Revenue by {unit}</h2>
        <Chart kind="bar" points={current.series ?? []} />
      </section>

      <section className="card">
        <h2>Top products</h2>
        <ProductTable rows={current.topProducts ?? []} selected={detail?.product.sku} busy={loading !== undefined && !groups.some((g) => g.value === loading) ? loading : undefined} onDrill={drill} />
      </section>

      {detail && <DetailPanel detail={detail} onClose={() => setDetail(undefined)} />}
    </div>
  );
}
