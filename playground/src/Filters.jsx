// Filters as the SMQ's structured filters ({member, operator, values}: docs/smq.md#structured-filters),
// every operator of the engine (engine/smq/structured.py OPERATORS) offered by the member's type: several
// values for equals/notEquals/contains..., set/notSet, date ranges (from-to or relative: "last month",
// "last 7 days"). Values are suggested from the data (POST /values, searched as you type), and a value
// that no row has is said at once, with the nearest values (the same call's `check`), instead of a
// silent "no rows". A filter written as SQL text stays a text row (checked the same way when simple).
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { complete, simpleValues } from './smq.js';

export const OPERATORS = {
  string: ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'notStartsWith', 'endsWith', 'notEndsWith', 'set', 'notSet'],
  number: ['equals', 'notEquals', 'gt', 'gte', 'lt', 'lte', 'set', 'notSet'],
  boolean: ['equals', 'notEquals', 'set', 'notSet'],
  time: ['inDateRange', 'notInDateRange', 'beforeDate', 'beforeOrOnDate', 'afterDate', 'afterOrOnDate', 'set', 'notSet'],
  measure: ['gt', 'gte', 'lt', 'lte', 'equals', 'notEquals'],
};
const LABELS = {
  equals: 'is', notEquals: 'is not', contains: 'contains', notContains: 'does not contain', startsWith: 'starts with',
  notStartsWith: 'does not start with', endsWith: 'ends with', notEndsWith: 'does not end with', gt: '>', gte: '≥', lt: '<',
  lte: '≤', set: 'is set', notSet: 'is not set', inDateRange: 'in date range', notInDateRange: 'not in date range',
  beforeDate: 'before', beforeOrOnDate: 'on or before', afterDate: 'after', afterOrOnDate: 'on or after',
};
export const RELATIVE_RANGES = ['today', 'yesterday', 'this week', 'last week', 'this month', 'last month', 'this quarter',
  'last quarter', 'this year', 'last year', 'last 7 days', 'last 30 days', 'last 90 days', 'last 12 months'];
const MANY = new Set(['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'notStartsWith', 'endsWith', 'notEndsWith']);
const RANGE = new Set(['inDateRange', 'notInDateRange']);
const NO_VALUES = new Set(['set', 'notSet']);

/** The kind of a filterable element: a dimension's type (date/timestamp: time), or measure for measures and metrics. */
export function kindOf(element) {
  if (!element) return 'string';
  if (element.kind !== 'dimension') return 'measure';
  return element.type === 'date' || element.type === 'timestamp' ? 'time' : OPERATORS[element.type] ? element.type : 'string';
}

/** A new filter on an element, with the first operator of its kind and no value yet. */
export const newFilter = (name, kind) => ({ member: name, operator: OPERATORS[kind][0], values: kind === 'boolean' ? ['true'] : [] });

const bare = (name) => String(name || '').split('.').pop();

function useDebounced(value, ms) {
  const [out, setOut] = useState(value);
  useEffect(() => { const t = setTimeout(() => setOut(value), ms); return () => clearTimeout(t); }, [value, ms]);
  return out;
}

/** Values of a dimension containing `search` (the data's, under the caller's role). */
function useSuggestions(db, dimension, search, enabled) {
  const [values, setValues] = useState([]);
  const term = useDebounced(search, 200);
  useEffect(() => {
    if (!db || !dimension || !enabled) { setValues([]); return undefined; }
    let live = true;
    api.values(db, { dimension, limit: 50, ...(term ? { search: term } : {}) })
      .then((r) => live && setValues(r.values)).catch(() => live && setValues([]));
    return () => { live = false; };
  }, [db, dimension, term, enabled]);
  return values;
}

/** The values of `values` that no row of `dimension` has, each with the nearest values. */
export function useMissing(db, dimension, values) {
  const [missing, setMissing] = useState([]);
  const key = JSON.stringify(values || []);
  useEffect(() => {
    if (!db || !dimension || !values?.length) { setMissing([]); return undefined; }
    let live = true;
    api.values(db, { dimension, limit: 1, check: values }).then((r) => live && setMissing(r.missing)).catch(() => live && setMissing([]));
    return () => { live = false; };
  }, [db, dimension, key]);
  return missing;
}

/** A warning under a filter: these values match no row; each suggestion is a button that puts it in place. */
export function MissingWarning({ element, missing, replace }) {
  if (!missing.length) return null;
  return (
    <div class="field-warning" role="status">
      {missing.map((m) => (
        <p key={String(m.value)}>No row has {element} = <code>{String(m.value)}</code>: this filter leaves nothing.
          {m.suggestions.length > 0 && <> Did you mean {m.suggestions.map((s) => (
            <button type="button" key={s} class="suggestion" onClick={() => replace(m.value, s)}>{s}</button>))}?</>}
        </p>
      ))}
    </div>
  );
}

function DateInput({ id, label, value, onChange }) {
  return (
    <>
      <label class="sr-only" for={id}>{label}</label>
      <input id={id} type="date" value={/^\d{4}-\d{2}-\d{2}$/.test(value || '') ? value : ''} onChange={(e) => onChange(e.currentTarget.value)} />
    </>
  );
}

/** The values of one filter, as its operator takes them. */
export function ValueEditor({ db, id, filter, kind, onChange }) {
  const { operator } = filter;
  const values = filter.values || [];
  const [text, setText] = useState('');
  const element = filter.member;
  const suggestions = useSuggestions(db, element, text, kind !== 'measure' && kind !== 'time' && MANY.has(operator));
  const set = (vs) => onChange({ ...filter, values: vs });
  if (NO_VALUES.has(operator)) return null;
  if (kind === 'time' && RANGE.has(operator)) {
    const relative = values.length === 1 && RELATIVE_RANGES.includes(values[0]);
    return (
      <span class="value-editor">
        <label class="sr-only" for={`${id}-range`}>Date range of {element}</label>
        <select id={`${id}-range`} value={relative ? values[0] : 'custom'}
          onChange={(e) => set(e.currentTarget.value === 'custom' ? [] : [e.currentTarget.value])}>
          <option value="custom">from – to…</option>
          {RELATIVE_RANGES.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
        {!relative && (
          <>
            <DateInput id={`${id}-from`} label={`From (${element})`} value={values[0]}
              onChange={(v) => set(v ? [v, values[1] || v] : [])} />
            <span aria-hidden="true">–</span>
            <DateInput id={`${id}-to`} label={`To (${element})`} value={values[1]}
              onChange={(v) => set(v ? [values[0] || v, v] : values.slice(0, 1))} />
          </>
        )}
      </span>
    );
  }
  if (kind === 'time') {
    return <DateInput id={`${id}-date`} label={`Date (${element})`} value={values[0]} onChange={(v) => set(v ? [v] : [])} />;
  }
  if (kind === 'boolean') {
    return (
      <>
        <label class="sr-only" for={`${id}-bool`}>Value for {element}</label>
        <select id={`${id}-bool`} value={values[0] || 'true'} onChange={(e) => set([e.currentTarget.value])}>
          <option value="true">true</option><option value="false">false</option>
        </select>
      </>
    );
  }
  const typed = (v) => (kind === 'number' || kind === 'measure') && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v;
  if (!MANY.has(operator)) {
    return (
      <>
        <label class="sr-only" for={`${id}-one`}>Value for {element}</label>
        <input id={`${id}-one`} class="narrow" inputMode="decimal" value={values[0] ?? ''}
          onChange={(e) => set(e.currentTarget.value === '' ? [] : [typed(e.currentTarget.value)])} />
      </>
    );
  }
  const add = (v) => {
    const value = typed(String(v).trim());
    if (value !== '' && !values.includes(value)) set([...values, value]);
    setText('');
  };
  return (
    <span class="value-editor">
      <ul class="chips" aria-label={`Values of ${element}`}>
        {values.map((v) => (
          <li key={String(v)} class="chip"><span>{String(v)}</span>
            <button type="button" class="icon" aria-label={`Remove value ${v}`} onClick={() => set(values.filter((x) => x !== v))}>×</button></li>
        ))}
      </ul>
      <label class="sr-only" for={`${id}-add`}>Value for {element}</label>
      <input id={`${id}-add`} list={`${id}-suggest`} value={text} placeholder={values.length ? 'or…' : 'value'}
        onInput={(e) => {
          const v = e.currentTarget.value;
          // picking a datalist option fills the box with exactly one of the suggestions: take it at once
          if (suggestions.some((s) => String(s) === v)) add(v); else setText(v);
        }}
        onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); add(text); } }}
        onBlur={() => text && add(text)} />
      <datalist id={`${id}-suggest`}>{suggestions.map((v) => <option key={String(v)} value={String(v)} />)}</datalist>
    </span>
  );
}

export function OperatorSelect({ id, filter, kind, onChange }) {
  return (
    <>
      <label class="sr-only" for={id}>Operator of {filter.member}</label>
      <select id={id} value={filter.operator} onChange={(e) => {
        const operator = e.currentTarget.value;
        const keep = (MANY.has(operator) && MANY.has(filter.operator)) || (RANGE.has(operator) && RANGE.has(filter.operator));
        onChange({ ...filter, operator, values: NO_VALUES.has(operator) ? [] : keep ? filter.values : kind === 'boolean' ? ['true'] : [] });
      }}>
        {OPERATORS[kind].map((o) => <option key={o} value={o}>{LABELS[o]}</option>)}
      </select>
    </>
  );
}

/** A structured filter row: member, operator, values, and the values no row has. */
export function StructuredFilter({ db, index, filter, element, onChange, onRemove, children }) {
  const kind = kindOf(element);
  const id = `filter-${index}`;
  const checkable = element?.kind === 'dimension' && (kind === 'string' || kind === 'number') && ['equals', 'notEquals'].includes(filter.operator);
  const missing = useMissing(db, checkable ? bare(filter.member) : null, checkable ? filter.values : null);
  return (
    <li class="row-item" data-filter={index}>
      <div class="row-controls">
        <code class="member" id={`${id}-member`}>{filter.member}</code>
        <OperatorSelect id={`${id}-op`} filter={filter} kind={kind} onChange={onChange} />
        <ValueEditor db={db} id={id} filter={filter} kind={kind} onChange={onChange} />
        <button type="button" class="icon" aria-label={`Remove filter ${index + 1}`} onClick={onRemove}>×</button>
      </div>
      {!complete(filter) && <p class="hint">Give a value: until then this filter is left out of the query.</p>}
      <MissingWarning element={filter.member} missing={missing}
        replace={(bad, good) => onChange({ ...filter, values: filter.values.map((v) => (v === bad ? good : v)) })} />
      {children}
    </li>
  );
}

/** A filter written as SQL text: edited as text, its simple `X = 'v'` / `X IN (...)` values checked against the data. */
export function TextFilter({ db, index, filter, invalid, onChange, onRemove, children }) {
  const simple = simpleValues(filter);
  const missing = useMissing(db, simple ? bare(simple.element) : null, simple?.values);
  const id = `filter-${index}`;
  return (
    <li class="row-item" data-filter={index}>
      <div class="row-controls">
        <label class="sr-only" for={id}>Filter {index + 1} expression</label>
        <input id={id} class="mono grow" value={filter} spellcheck={false} aria-invalid={invalid}
          onChange={(e) => onChange(e.currentTarget.value)} />
        <button type="button" class="icon" aria-label={`Remove filter ${index + 1}`} onClick={onRemove}>×</button>
      </div>
      {simple && <MissingWarning element={simple.element} missing={missing}
        replace={(bad, good) => onChange(filter.replace(`'${String(bad).replace(/'/g, "''")}'`, `'${good.replace(/'/g, "''")}'`))} />}
      {children}
    </li>
  );
}

/** Add a filter: an element (dimensions, then measures and metrics for HAVING), then its operator and values. */
export function NewFilter({ db, elements, preset, onAdd }) {
  const [draft, setDraft] = useState(null);
  const pick = (name) => {
    const element = elements.find((e) => e.name === name);
    setDraft(element ? newFilter(name, kindOf(element)) : null);
  };
  useEffect(() => { if (preset) pick(preset.name); }, [preset]);
  const element = draft && elements.find((e) => e.name === draft.member);
  const kind = kindOf(element);
  return (
    <div class="row-controls new-filter" role="group" aria-label="New filter">
      <label class="sr-only" for="nf-element">Filter element</label>
      <select id="nf-element" value={draft?.member || ''} onChange={(e) => pick(e.currentTarget.value)}>
        <option value="">+ filter on…</option>
        <optgroup label="dimensions">
          {elements.filter((e) => e.kind === 'dimension').map((e) => <option key={e.name} value={e.name}>{e.name}</option>)}
        </optgroup>
        <optgroup label="measures and metrics (HAVING)">
          {elements.filter((e) => e.kind !== 'dimension').map((e) => <option key={e.name} value={e.name}>{e.name}</option>)}
        </optgroup>
      </select>
      {draft && (
        <>
          <OperatorSelect id="nf-op" filter={draft} kind={kind} onChange={setDraft} />
          <ValueEditor db={db} id="nf" filter={draft} kind={kind} onChange={setDraft} />
          <button type="button" onClick={() => { onAdd(draft); setDraft(null); }}>Add filter</button>
        </>
      )}
    </div>
  );
}
