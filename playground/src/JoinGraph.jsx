// The join graph as a picture: models on a circle, one line per declared join (joins.yml), read from the
// get_join_info exploration tool. The "many" end of an edge is marked N, the "one" end 1; edges declared
// one_to_many (fan-out from the model that declares them) are drawn dashed and listed below.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

async function loadEdges(db) {
  const { tables } = await api.tool(db, 'listTables');
  const infos = await Promise.all(tables.map((t) => api.tool(db, 'get_join_info', { table: t.table }).catch(() => null)));
  const edges = new Map();
  for (const info of infos) {
    for (const j of info?.declared_joins || []) edges.set(`${j.from_model}.${j.key}`, j);
  }
  return { models: tables.map((t) => t.model).filter(Boolean), edges: [...edges.values()] };
}

const BOX_W = 160, BOX_H = 32, COL = 200, ROW = 84;

/** Layers by join depth: a model sits below every model that joins to it (many side above, one side
 * below), so facts are on top and lookups at the bottom; within a layer, near the models it joins. */
function layout(graph) {
  const level = new Map(graph.models.map((m) => [m, 0]));
  for (let pass = 0; pass < graph.models.length; pass++) {  // longest path; bounded, so a cycle cannot loop
    let changed = false;
    for (const e of graph.edges) {
      const [many, one] = e.relationship === 'one_to_many' ? [e.to_model, e.from_model] : [e.from_model, e.to_model];
      if (level.has(many) && level.has(one) && level.get(one) < level.get(many) + 1) { level.set(one, level.get(many) + 1); changed = true; }
    }
    if (!changed) break;
  }
  const layers = [];
  for (const m of graph.models) (layers[level.get(m)] ||= []).push(m);
  const pos = new Map();
  const widest = Math.max(...layers.map((l) => (l ? l.length : 0)));
  const W = Math.max(420, widest * COL + 40);
  layers.forEach((layer, y) => {
    if (!layer) return;
    const near = (m) => {  // mean x of the already placed models it joins
      const xs = graph.edges.filter((e) => e.from_model === m || e.to_model === m)
        .map((e) => pos.get(e.from_model === m ? e.to_model : e.from_model)).filter(Boolean).map((p) => p[0]);
      return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : W / 2;
    };
    layer.sort((a, b) => near(a) - near(b)).forEach((m, i) => {
      pos.set(m, [W / 2 + (i - (layer.length - 1) / 2) * COL, y * ROW + BOX_H / 2 + 20]);
    });
  });
  return { W, H: layers.length * ROW + 10, pos, BW: BOX_W, BH: BOX_H };
}

/** Where the line from a's centre to b's leaves a's box, a little outside it: the place for an end mark. */
function exit(a, b, bw, bh) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const t = Math.min(Math.abs((bw / 2) / (dx || 1e-9)), Math.abs((bh / 2) / (dy || 1e-9)));
  const len = Math.hypot(dx, dy) || 1;
  return [a[0] + dx * t + (dx / len) * 12, a[1] + dy * t + (dy / len) * 12 + 4];
}

const along = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
const ends = (rel) => ({ many_to_one: ['N', '1'], one_to_many: ['1', 'N'], one_to_one: ['1', '1'], many_to_many: ['N', 'N'] }[rel] || ['', '']);

export function JoinGraph({ db }) {
  const [graph, setGraph] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    setGraph(null);
    setError(null);
    loadEdges(db).then((g) => live && setGraph(g)).catch((err) => live && setError(err.message));
    return () => { live = false; };
  }, [db]);
  if (error) return <p class="field-error" role="alert">Cannot read the joins: {error}</p>;
  if (!graph) return <p class="hint">Reading the joins…</p>;
  const { W, H, pos, BW, BH } = layout(graph);
  return (
    <div class="graph">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="graph-title graph-desc" class="graph-svg">
        <title id="graph-title">Join graph of {db}</title>
        <desc id="graph-desc">{graph.models.length} models and {graph.edges.length} joins; the table below lists them.</desc>
        {graph.edges.map((e) => {
          const a = pos.get(e.from_model), b = pos.get(e.to_model);
          if (!a || !b) return null;
          const [na, nb] = ends(e.relationship);
          const la = exit(a, b, BW, BH), lb = exit(b, a, BW, BH), mid = along(a, b, 0.5);
          return (
            <g key={`${e.from_model}.${e.key}`} class={`edge edge-${e.relationship}`}>
              <line x1={a[0]} y1={a[1]} x2={b[0]} y2={b[1]} />
              <text x={la[0]} y={la[1]} class="edge-end">{na}</text>
              <text x={lb[0]} y={lb[1]} class="edge-end">{nb}</text>
              <text x={mid[0] + 4} y={mid[1]} class="edge-key">{e.key}</text>
            </g>
          );
        })}
        {graph.models.map((m) => {
          const [x, y] = pos.get(m);
          return (
            <g key={m} class="node">
              <rect x={x - BW / 2} y={y - BH / 2} width={BW} height={BH} rx="6" />
              <text x={x} y={y + 5}>{m}</text>
            </g>
          );
        })}
      </svg>
      <p class="hint">N = the many side, 1 = the one side; dashed lines are joins declared one_to_many (they fan out rows).</p>
      <table class="rows-table edges-table">
        <caption>Joins</caption>
        <thead><tr><th scope="col">from</th><th scope="col">edge</th><th scope="col">to</th><th scope="col">relationship</th><th scope="col">on</th></tr></thead>
        <tbody>{graph.edges.map((e) => (
          <tr key={`${e.from_model}.${e.key}`} class={e.relationship === 'one_to_many' ? 'fanout' : ''}>
            <td>{e.from_model}</td><td><code>{e.key}</code></td><td>{e.to_model}</td>
            <td>{e.relationship === 'one_to_many' ? <strong>one_to_many</strong> : e.relationship}</td><td><code>{e.on}</code></td>
          </tr>
        ))}</tbody>
      </table>
    </div>
  );
}
