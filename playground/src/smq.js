// SMQ helpers: an empty query, its clean form (no empty keys), the shareable URL hash, and where a
// problem's `location.field` (e.g. "filters[1]") sits in the JSON text.

export const emptySmq = () => ({ metrics: [], group_by: [], filters: [], order_by: [], limit: null });

/** Does a filter have what its operator needs? An incomplete one (no value picked yet) is left out of the query. */
export function complete(filter) {
  if (typeof filter === 'string') return filter.trim() !== '';
  if (!filter || typeof filter !== 'object' || filter.and || filter.or) return true;
  return filter.operator === 'set' || filter.operator === 'notSet' || (filter.values || []).length > 0;
}

/** The index a filter has in the query sent (incomplete ones are left out), or null for an incomplete one. */
export function sentIndex(filters, i) {
  if (!complete(filters[i])) return null;
  return filters.slice(0, i).filter(complete).length;
}

export function cleanSmq(smq) {
  const out = {};
  const sent = { ...smq, filters: (smq.filters || []).filter(complete) };
  for (const key of ['metrics', 'group_by', 'filters', 'order_by']) if (sent[key] && sent[key].length) out[key] = sent[key];
  if (smq.limit !== null && smq.limit !== undefined && smq.limit !== '') out.limit = smq.limit;
  return out;
}

export function fromJson(value) {
  const smq = emptySmq();
  for (const [k, v] of Object.entries(value || {})) smq[k] = v;
  return smq;
}

export function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  let smq = null;
  try {
    smq = params.get('smq') ? fromJson(JSON.parse(params.get('smq'))) : null;
  } catch {
    smq = null;
  }
  return { db: params.get('db'), smq, dialect: params.get('dialect'), tab: params.get('tab'), chart: params.get('chart') };
}

/** The URL hash of a view: database, tab, dialect, chart type and the query (a saved view is this hash). */
export function viewHash({ db, smq, dialect, tab, chart }) {
  const params = new URLSearchParams();
  if (db) params.set('db', db);
  if (tab && tab !== 'query') params.set('tab', tab);
  if (dialect) params.set('dialect', dialect);
  if (chart && chart !== 'auto') params.set('chart', chart);
  const clean = cleanSmq(smq);
  if (Object.keys(clean).length) params.set('smq', JSON.stringify(clean));
  return `#${params.toString()}`;
}

export function writeHash(view) {
  const hash = viewHash(view);
  if (hash !== location.hash) history.replaceState(null, '', hash);
}

/** The element and values of a simple SQL-text filter (`X = 'v'`, `X IN ('a', 'b')`), to check them; else null. */
export function simpleValues(filter) {
  const m = /^\s*([A-Za-z_][\w.]*)\s*(?:=|!=|<>|(?:NOT\s+)?IN)\s*(\(.*\)|'(?:[^']|'')*')\s*$/i.exec(filter || '');
  if (!m) return null;
  const values = [...m[2].matchAll(/'((?:[^']|'')*)'/g)].map((v) => v[1].replace(/''/g, "'"));
  return values.length ? { element: m[1], values } : null;
}

/** Line (1-based) of a problem field such as "metrics", "filters[1]" or "limit" in JSON text, or null. */
export function lineOfField(text, field) {
  const match = /^([A-Za-z_]+)(?:\[(\d+)\])?/.exec(field || '');
  if (!match) return null;
  const [, key, index] = match;
  const keyAt = text.search(new RegExp(`"${key}"\\s*:`));
  if (keyAt < 0) return null;
  let at = keyAt;
  if (index !== undefined) {
    // walk the array's items at depth 1, skipping strings
    let i = text.indexOf('[', keyAt);
    if (i < 0) return null;
    let depth = 0, item = 0, start = null;
    for (i += 1; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        if (depth === 0 && start === null) start = i;
        for (i += 1; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
        continue;
      }
      if (/\s/.test(c)) continue;
      if (depth === 0 && start === null) start = i;
      if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') { if (depth === 0) break; depth--; }
      else if (c === ',' && depth === 0) {
        if (item === Number(index)) break;
        item++;
        start = null;
      }
    }
    if (item !== Number(index) || start === null) return null;
    at = start;
  }
  return text.slice(0, at).split('\n').length;
}

/** The element name a filter is about (its first identifier), for the value picker. */
export const filterElement = (filter) => (/^\s*([A-Za-z_][\w.]*)/.exec(filter || '') || [])[1] || '';

export function toCsv(columns, rows) {
  const cell = (v) => {
    if (v === null || v === undefined) return '';
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
