// Numbers shown as the layer says (a measure's or metric's `format`: currency, percent, number and its
// decimals; docs/semantic-layer.md#number-formats), in the reader's locale. The answer's `fields` carry
// the format of each column; the catalog carries it per element (for the builder and the chart).

const cache = new Map();

function numberFormat(options) {
  const key = JSON.stringify(options);
  if (!cache.has(key)) cache.set(key, new Intl.NumberFormat(undefined, options));
  return cache.get(key);
}

/** Intl options for a layer format (or none: up to `fallbackDigits` decimals). */
export function intlOptions(format, fallbackDigits = 2) {
  if (!format) return { maximumFractionDigits: fallbackDigits };
  const digits = format.decimals;
  const fixed = digits === undefined || digits === null ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  if (format.type === 'currency') return { style: 'currency', currency: format.currency || 'EUR', ...fixed };
  if (format.type === 'percent') return { style: 'percent', maximumFractionDigits: 1, ...fixed };
  return { maximumFractionDigits: fallbackDigits, ...fixed };
}

/** A function showing one value of a column with this format. */
export function formatter(format, fallbackDigits = 2) {
  const intl = numberFormat(intlOptions(format, fallbackDigits));
  return (v) => (typeof v === 'number' ? intl.format(v) : v === null || v === undefined ? '∅' : String(v));
}

/** A short form for chart axes (1.2K €, 35%). */
export function axisFormatter(format) {
  const base = intlOptions(format, 1);
  const intl = numberFormat({ ...base, notation: 'compact', minimumFractionDigits: 0, maximumFractionDigits: format?.type === 'percent' ? 0 : 1 });
  return (v) => (typeof v === 'number' ? intl.format(v) : String(v));
}

/** What a format measures in (currency and code, percent, plain number): series sharing a unit share an axis. */
export const unitOf = (format) => (format?.type === 'currency' ? `currency:${format.currency}` : format?.type === 'percent' ? 'percent' : 'number');

export const unitLabel = (format) => (format?.type === 'currency' ? format.currency : format?.type === 'percent' ? '%' : '');
