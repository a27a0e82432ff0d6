// A chart chosen from the result's shape: one row and no group-by -> big numbers; a time axis first -> a
// line per metric (or per value of a second group-by); else bars by category. ECharts, tree-shaken to
// the two chart types, the grid, tooltip and legend, drawn as SVG, and loaded with the first chart (its
// own chunk), so the page itself loads small.
import { useEffect, useRef } from 'preact/hooks';

let echartsReady = null;
const loadEcharts = () => (echartsReady ||= import('./echarts.js'));

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?/;
const MAX_POINTS = 500;

export function chartKind(columns, rows, groupCount) {
  if (!rows.length || !columns.length) return 'none';
  if (groupCount === 0) return rows.length === 1 ? 'number' : 'none';
  const first = rows.map((r) => r[0]).filter((v) => v !== null);
  const metricsNumeric = columns.slice(groupCount).some((_, i) => rows.some((r) => typeof r[groupCount + i] === 'number'));
  if (!metricsNumeric) return 'none';
  return first.length && first.every((v) => typeof v === 'string' && ISO_DATE.test(v)) ? 'line' : 'bar';
}

function option(kind, columns, rows, groupCount) {
  const metrics = columns.slice(groupCount);
  const data = rows.slice(0, MAX_POINTS);
  const label = (v) => (v === null ? '∅' : String(v));
  if (groupCount >= 2 && metrics.length >= 1) {
    // second group-by values become series of the first metric
    const xs = [...new Set(data.map((r) => label(r[0])))];
    const keys = [...new Set(data.map((r) => label(r[1])))].slice(0, 12);
    const series = keys.map((k) => ({
      name: k, type: kind, showSymbol: false, stack: kind === 'bar' ? 'total' : undefined,
      data: xs.map((x) => {
        const row = data.find((r) => label(r[0]) === x && label(r[1]) === k);
        return row ? row[groupCount] : null;
      }),
    }));
    return { xs, series, title: `${metrics[0]} by ${columns[0]} and ${columns[1]}` };
  }
  const xs = data.map((r) => label(r[0]));
  // two metrics: the second on its own axis (right), so a count next to a sum of money stays visible
  const series = metrics.map((m, i) => ({ name: m, type: kind, showSymbol: false, yAxisIndex: metrics.length === 2 ? i : 0,
    data: data.map((r) => r[groupCount + i]) }));
  return { xs, series, title: `${metrics.join(', ')} by ${columns[0]}`, axes: metrics.length === 2 ? 2 : 1 };
}

export function Chart({ columns, rows, groupCount }) {
  const box = useRef(null);
  const kind = chartKind(columns, rows, groupCount);
  useEffect(() => {
    if (!box.current || (kind !== 'line' && kind !== 'bar')) return undefined;
    let chart = null;
    let live = true;
    const resize = () => chart?.resize();
    loadEcharts().then((echarts) => {
      if (!live || !box.current) return;
      chart = echarts.init(box.current, null, { renderer: 'svg' });
      draw(chart);
      window.addEventListener('resize', resize);
    });
    return () => { live = false; window.removeEventListener('resize', resize); chart?.dispose(); };
  }, [kind, columns, rows, groupCount]);
  function draw(chart) {
    const { xs, series, axes = 1 } = option(kind, columns, rows, groupCount);
    chart.setOption({
      animation: false,
      tooltip: { trigger: 'axis' },
      legend: { type: 'scroll', top: 0 },
      grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: xs, boundaryGap: kind === 'bar' },
      yAxis: axes === 2 ? [{ type: 'value', alignTicks: true }, { type: 'value', alignTicks: true }]
        : { type: 'value' },
      series,
    });
  }
  if (kind === 'number') {
    return (
      <div class="big-numbers" role="group" aria-label="Result">
        {columns.map((c, i) => (
          <div class="big-number" key={c}>
            <span class="big-value">{typeof rows[0][i] === 'number' ? rows[0][i].toLocaleString(undefined, { maximumFractionDigits: 2 }) : String(rows[0][i])}</span>
            <span class="big-label">{c}</span>
          </div>
        ))}
      </div>
    );
  }
  if (kind === 'none') return null;
  const { title } = option(kind, columns, rows, groupCount);
  return <figure class="chart-figure"><div ref={box} class="chart" role="img" aria-label={`${kind === 'line' ? 'Line' : 'Bar'} chart: ${title}`} data-kind={kind} />
    <figcaption class="hint">{kind === 'line' ? 'Line' : 'Bars'}: {title}{rows.length > MAX_POINTS ? ` (first ${MAX_POINTS} rows)` : ''}</figcaption></figure>;
}
