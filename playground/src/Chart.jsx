// Charts chosen from what the numbers mean, not only from the result's shape:
// - one row without group-by: big numbers, formatted;
// - a time axis first: lines; else bars;
// - every metric is drawn: metrics sharing a unit (EUR, %, a count) share an axis, two units get two
//   axes, more get a chart each; with a second group-by, one chart per metric, its values as series;
// - only additive metrics (sums and counts, `additive` in /elements) are ever stacked: a stack of
//   averages or ratios adds up to nothing, so those are drawn side by side;
// - a chart-type switch (auto, bars, stacked bars, lines, areas, table only), kept in the URL, and the
//   time grain of a time axis next to it.
// ECharts, tree-shaken to line and bar charts (SVG), loaded with the first chart as its own chunk.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { axisFormatter, formatter, unitLabel, unitOf } from './format.js';

let echartsReady = null;
const loadEcharts = () => (echartsReady ||= import('./echarts.js'));

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?/;
const MAX_POINTS = 500;
const MAX_SERIES = 12;
const MAX_CHARTS = 6;
export const CHART_TYPES = [['auto', 'auto'], ['bar', 'bars'], ['stacked', 'stacked bars'], ['line', 'lines'], ['area', 'areas'], ['table', 'table only']];

const label = (v) => (v === null || v === undefined ? '∅' : String(v));

/** What to draw: {kind: 'number' | 'none' | 'charts', charts: [...], notes: [...]}. */
export function chartPlan({ columns, rows, fields = [], groupCount }, elements, choice = 'auto') {
  if (!rows.length || !columns.length) return { kind: 'none', charts: [], notes: [] };
  const formatOf = (i) => fields[i]?.format || elements[fields[i]?.element || columns[i]]?.format || null;
  if (groupCount === 0) return rows.length === 1 ? { kind: 'number', charts: [], notes: [], formatOf } : { kind: 'none', charts: [], notes: [] };
  const metrics = columns.map((c, i) => i).slice(groupCount).filter((i) => rows.some((r) => typeof r[i] === 'number'));
  if (!metrics.length || choice === 'table') return { kind: 'none', charts: [], notes: [] };
  const first = rows.map((r) => r[0]).filter((v) => v !== null);
  const time = fields[0]?.type === 'time' || (first.length > 0 && first.every((v) => typeof v === 'string' && ISO_DATE.test(v)));
  const kind = choice === 'line' || choice === 'area' ? 'line' : choice === 'bar' || choice === 'stacked' ? 'bar' : time ? 'line' : 'bar';
  const additive = (i) => Boolean(elements[fields[i]?.element || columns[i]]?.additive);
  const data = rows.slice(0, MAX_POINTS);
  const xs = [...new Set(data.map((r) => label(r[0])))];
  const notes = [];
  if (rows.length > MAX_POINTS) notes.push(`first ${MAX_POINTS} rows`);
  const charts = [];
  if (groupCount === 1) {
    // one chart per pair of units (two axes); stacking several metrics only when asked and they add up in one unit
    const units = [...new Set(metrics.map((i) => unitOf(formatOf(i))))];
    const groups = [];
    for (let u = 0; u < units.length; u += 2) groups.push(units.slice(u, u + 2));
    for (const group of groups.slice(0, MAX_CHARTS)) {
      const mine = metrics.filter((i) => group.includes(unitOf(formatOf(i))));
      const stack = (choice === 'stacked' || choice === 'area') && group.length === 1 && mine.length > 1 && mine.every(additive);
      if ((choice === 'stacked') && !stack && mine.length > 1) notes.push(`not stacked: ${mine.filter((i) => !additive(i)).map((i) => columns[i]).join(', ') || 'different units'} do not add up`);
      charts.push({
        title: `${mine.map((i) => columns[i]).join(', ')} by ${columns[0]}`,
        kind, area: choice === 'area', stacked: stack, xs,
        axes: group.map((u) => formatOf(mine.find((i) => unitOf(formatOf(i)) === u))),
        series: mine.map((i) => ({ name: columns[i], format: formatOf(i), axis: group.indexOf(unitOf(formatOf(i))),
          data: xs.map((x) => data.find((r) => label(r[0]) === x)?.[i] ?? null) })),
      });
    }
  } else {
    // a chart per metric; the other group-bys' values are its series
    const key = (r) => r.slice(1, groupCount).map(label).join(' · ');
    const keys = [...new Set(data.map(key))];
    if (keys.length > MAX_SERIES) notes.push(`${MAX_SERIES} of ${keys.length} series`);
    for (const i of metrics.slice(0, MAX_CHARTS)) {
      const adds = additive(i);
      const stack = adds && (choice === 'stacked' || choice === 'area' || (choice === 'auto' && kind === 'bar'));
      if (!adds && (choice === 'stacked' || choice === 'area')) notes.push(`${columns[i]} is not stacked: its groups do not add up (an average, a ratio or a distinct count)`);
      charts.push({
        title: `${columns[i]} by ${columns.slice(0, groupCount).join(' and ')}`,
        kind, area: choice === 'area', stacked: stack, xs, axes: [formatOf(i)],
        series: keys.slice(0, MAX_SERIES).map((k) => ({ name: k, format: formatOf(i), axis: 0,
          data: xs.map((x) => data.find((r) => label(r[0]) === x && key(r) === k)?.[i] ?? null) })),
      });
    }
    if (metrics.length > MAX_CHARTS) notes.push(`first ${MAX_CHARTS} metrics`);
  }
  return { kind: 'charts', charts, notes };
}

function option(chart) {
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: { type: 'scroll', top: 0 },
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: chart.xs, boundaryGap: chart.kind === 'bar' },
    yAxis: chart.axes.map((format, a) => ({ type: 'value', alignTicks: chart.axes.length > 1, position: a === 0 ? 'left' : 'right',
      name: unitLabel(format), axisLabel: { formatter: axisFormatter(format) } })),
    series: chart.series.map((s) => ({
      name: s.name, type: chart.kind, showSymbol: false, yAxisIndex: s.axis, data: s.data,
      stack: chart.stacked ? 'total' : undefined, areaStyle: chart.area ? {} : undefined,
      tooltip: { valueFormatter: formatter(s.format) },
    })),
  };
}

function OneChart({ chart }) {
  const box = useRef(null);
  useEffect(() => {
    if (!box.current) return undefined;
    let instance = null;
    let live = true;
    const resize = () => instance?.resize();
    loadEcharts().then((echarts) => {
      if (!live || !box.current) return;
      instance = echarts.init(box.current, null, { renderer: 'svg' });
      instance.setOption(option(chart));
      window.addEventListener('resize', resize);
    });
    return () => { live = false; window.removeEventListener('resize', resize); instance?.dispose(); };
  }, [chart]);
  const name = chart.kind === 'line' ? (chart.area ? 'Area' : 'Line') : chart.stacked ? 'Stacked bar' : 'Bar';
  return (
    <figure class="chart-figure">
      <div ref={box} class="chart" role="img" aria-label={`${name} chart: ${chart.title}`} data-kind={chart.kind}
        data-stacked={String(chart.stacked)} data-series={chart.series.length} />
      <figcaption class="hint">{name}s: {chart.title}</figcaption>
    </figure>
  );
}

/** The chart-type switch and, for a time axis, its grain (`grain`: {base, value, grains, onChange}). */
function ChartBar({ choice, onChoice, grain }) {
  return (
    <div class="chart-bar">
      <label for="chart-type">Chart</label>
      <select id="chart-type" value={choice} onChange={(e) => onChoice(e.currentTarget.value)}>
        {CHART_TYPES.map(([id, text]) => <option key={id} value={id}>{text}</option>)}
      </select>
      {grain && (
        <>
          <label for="chart-grain">Time grain</label>
          <select id="chart-grain" value={grain.value} onChange={(e) => grain.onChange(e.currentTarget.value)}>
            <option value="">as stored</option>
            {grain.grains.map((g) => <option key={g} value={g}>{g}</option>)}
          </select>
        </>
      )}
    </div>
  );
}

export function Chart({ result, elements, choice, onChoice, grain }) {
  const plan = useMemo(() => chartPlan(result, elements, choice), [result, elements, choice]);
  if (plan.kind === 'number') {
    const { columns, rows } = result;
    return (
      <div class="big-numbers" role="group" aria-label="Result">
        {columns.map((c, i) => (
          <div class="big-number" key={c}>
            <span class="big-value">{formatter(plan.formatOf(i))(rows[0][i])}</span>
            <span class="big-label">{c}</span>
          </div>
        ))}
      </div>
    );
  }
  if (!result.groupCount) return null;
  return (
    <section class="charts" aria-label="Charts">
      <ChartBar choice={choice} onChoice={onChoice} grain={grain} />
      {plan.charts.map((chart) => <OneChart key={chart.title} chart={chart} />)}
      {plan.notes.length > 0 && <p class="hint chart-notes">{plan.notes.join('; ')}</p>}
    </section>
  );
}
