// SMQ helpers: an empty query, its clean form (no empty keys), the shareable URL hash, and where a
// problem's `location.field` (e.g. "filters[1]") sits in the JSON text.

export const emptySmq = () => ({ metrics: [], group_by: [], filters: [], order_by: [], limit: null });

export function cleanSmq(smq) {
  const out = {};
  for (const key of ['metrics', 'group_by', 'filters', 'order_by']) if (smq[key] && smq[key].length) out[key] = smq[key];
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
  return { db: params.get('db'), smq, dialect: params.get('dialect'), tab: params.get('tab') };
}

export function writeHash({ db, smq, dialect, tab }) {
  const params = new URLSearchParams();
  if (db) params.set('db', db);
  if (tab && tab !== 'query') params.set('tab', tab);
  if (dialect) params.set('dialect', dialect);
  const clean = cleanSmq(smq);
  if (Object.keys(clean).length) params.set('smq', JSON.stringify(clean));
  const hash = `#${params.toString()}`;
  if (hash !== location.hash) history.replaceState(null, '', hash);
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
