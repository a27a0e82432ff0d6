// Rows, sortable by any column (click or Enter on its header) and paged, numbers formatted as the layer
// says (the cell's data-value keeps the raw value); CSV of all rows (raw values), made here.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { formatter } from './format.js';
import { toCsv } from './smq.js';

const PAGE = 25;

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

const plain = formatter(null, 4);
const show = (v, format) => (v === null || v === undefined ? '∅' : typeof v === 'number' ? (format ? format(v) : plain(v))
  : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function download(name, columns, rows) {
  const blob = new Blob([toCsv(columns, rows)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** `fields` (the answer's typed columns) give each number column its format: EUR, %, decimals. */
export function Table({ columns, rows, caption, fileName = 'result.csv', fields = [] }) {
  const formats = useMemo(() => columns.map((_, i) => (fields[i]?.format ? formatter(fields[i].format) : null)), [columns, fields]);
  const [sort, setSort] = useState({ column: null, desc: false });
  const [page, setPage] = useState(0);
  useEffect(() => { setPage(0); setSort({ column: null, desc: false }); }, [columns, rows]);
  const sorted = useMemo(() => {
    if (sort.column === null) return rows;
    const i = sort.column;
    const out = [...rows].sort((a, b) => compare(a[i], b[i]));
    return sort.desc ? out.reverse() : out;
  }, [rows, sort]);
  const pages = Math.max(1, Math.ceil(sorted.length / PAGE));
  const shown = sorted.slice(page * PAGE, page * PAGE + PAGE);
  const toggle = (i) => setSort(sort.column === i ? { column: i, desc: !sort.desc } : { column: i, desc: false });
  return (
    <div class="table-block">
      <div class="table-bar">
        <span class="hint" aria-live="polite">
          {rows.length ? `rows ${page * PAGE + 1}–${Math.min(sorted.length, page * PAGE + PAGE)} of ${rows.length}` : 'no rows'}
        </span>
        <span class="pager">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>‹ Previous page</button>
          <span class="hint">page {page + 1} / {pages}</span>
          <button type="button" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>Next page ›</button>
        </span>
        <button type="button" onClick={() => download(fileName, columns, sorted)} disabled={!columns.length}>Download CSV</button>
      </div>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
        <table class="rows-table">
          <caption class="sr-only">{caption}</caption>
          <thead>
            <tr>{columns.map((c, i) => (
              <th key={c} scope="col" aria-sort={sort.column === i ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                <button type="button" class="th-button" onClick={() => toggle(i)}>
                  {c} <span aria-hidden="true">{sort.column === i ? (sort.desc ? '▼' : '▲') : ''}</span>
                </button>
              </th>
            ))}</tr>
          </thead>
          <tbody>
            {shown.map((r, k) => <tr key={k}>{r.map((v, i) => <td key={i} class={typeof v === 'number' ? 'num' : ''} data-value={JSON.stringify(v ?? null)}>{show(v, formats[i])}</td>)}</tr>)}
          </tbody>
        </table>
      </div>
    </div>
  );
}
