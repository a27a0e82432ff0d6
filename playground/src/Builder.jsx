// Build an SMQ by clicking: metrics, group-bys with a grain, filters (the value picker lists the
// column's values from a group-by-only query), order and limit. Errors of the last compile are shown
// beside the field their `location.field` names (metrics[0], filters[1], ...).
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { filterElement } from './smq.js';

const GRAINS = ['day', 'week', 'month', 'quarter', 'year'];
const OPERATORS = ['=', '!=', '>', '>=', '<', '<='];

/** The errors of one field; each suggestion is a button that puts it in place (`fix`). */
function FieldErrors({ errors, field, fix }) {
  const mine = errors.filter((e) => (e.location?.field || '') === field);
  if (!mine.length) return null;
  return (
    <div class="field-error" role="alert">
      {mine.map((e, i) => (
        <div key={i}>
          <p>{e.message}</p>
          {e.suggestions?.length > 0 && (
            <p class="suggestions">{fix ? 'Use: ' : 'Did you mean: '}
              {e.suggestions.map((s) => (fix
                ? <button type="button" key={s} class="suggestion" onClick={() => fix(s, e)}>{s}</button>
                : <code key={s}>{s} </code>))}
            </p>
          )}
        </div>
      ))}
    </div>
  );
}

/** A filter with the element its error names ('X' in the message) replaced by a suggestion. */
function fixFilter(filter, suggestion, error) {
  const bad = /'([A-Za-z_][\w.]*)'/.exec(error.message || '')?.[1];
  return bad && filter.includes(bad) ? filter.replace(bad, suggestion) : filter;
}

function literal(value, type) {
  if (type === 'number' && value !== '' && !Number.isNaN(Number(value))) return String(value);
  if (type === 'boolean' && /^(true|false)$/i.test(value)) return value.toUpperCase();
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** Values of a dimension, most useful first: a group-by-only SMQ over the public /query route. */
function useValues(db, element) {
  const [state, setState] = useState({ element: null, values: [], error: null });
  useEffect(() => {
    if (!db || !element) return;
    let live = true;
    api.query(db, { group_by: [element], limit: 200 }, 200)
      .then((r) => live && setState({ element, values: r.rows.map((row) => row[0]).filter((v) => v !== null), error: null }))
      .catch((err) => live && setState({ element, values: [], error: err.message }));
    return () => { live = false; };
  }, [db, element]);
  return state.element === element ? state : { values: [], error: null };
}

function FilterRow({ db, index, filter, dimensions, errors, onChange, onRemove }) {
  const element = filterElement(filter);
  const dim = dimensions.find((d) => d.name === element);
  const { values } = useValues(db, dim ? element : null);
  const id = `filter-${index}`;
  return (
    <li class="row-item">
      <div class="row-controls">
        <label class="sr-only" for={id}>Filter {index + 1} expression</label>
        <input id={id} class="mono grow" value={filter} spellcheck={false}
          aria-invalid={errors.some((e) => e.location?.field === `filters[${index}]`)}
          onChange={(e) => onChange(e.currentTarget.value)} />
        {values.length > 0 && (
          <>
            <label class="sr-only" for={`${id}-value`}>Value for {element}</label>
            <select id={`${id}-value`} value="" onChange={(e) => {
              const v = e.currentTarget.value;
              if (v) onChange(`${element} = ${literal(v, dim.type)}`);
            }}>
              <option value="">pick a value…</option>
              {values.map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
            </select>
          </>
        )}
        <button type="button" class="icon" aria-label={`Remove filter ${index + 1}`} onClick={onRemove}>×</button>
      </div>
      <FieldErrors errors={errors} field={`filters[${index}]`} fix={(v, e) => onChange(fixFilter(filter, v, e))} />
    </li>
  );
}

function NewFilter({ db, dimensions, onAdd, preset }) {
  const [element, setElement] = useState(preset || '');
  const [op, setOp] = useState('=');
  const [value, setValue] = useState('');
  useEffect(() => { if (preset) setElement(preset); }, [preset]);
  const dim = dimensions.find((d) => d.name === element);
  const { values } = useValues(db, dim ? element : null);
  const add = (e) => {
    e.preventDefault();
    if (!element || value === '') return;
    onAdd(`${element} ${op} ${literal(value, dim?.type)}`);
    setValue('');
  };
  return (
    <form class="row-controls new-filter" onSubmit={add} aria-label="New filter">
      <label class="sr-only" for="nf-element">Filter element</label>
      <select id="nf-element" value={element} onChange={(e) => setElement(e.currentTarget.value)}>
        <option value="">element…</option>
        {dimensions.map((d) => <option key={d.name} value={d.name}>{d.name}</option>)}
      </select>
      <label class="sr-only" for="nf-op">Operator</label>
      <select id="nf-op" value={op} onChange={(e) => setOp(e.currentTarget.value)}>
        {OPERATORS.map((o) => <option key={o}>{o}</option>)}
      </select>
      <label class="sr-only" for="nf-value">Filter value</label>
      <input id="nf-value" list="nf-values" value={value} placeholder="value" onInput={(e) => setValue(e.currentTarget.value)} />
      <datalist id="nf-values">{values.map((v) => <option key={String(v)} value={String(v)} />)}</datalist>
      <button type="submit" disabled={!element || value === ''}>Add filter</button>
    </form>
  );
}

function splitGrain(name, dims) {
  if (dims.some((d) => d.name === name)) return [name, ''];
  const cut = name.lastIndexOf('__');
  const base = name.slice(0, cut);
  const grain = name.slice(cut + 2);
  return GRAINS.includes(grain) && dims.some((d) => d.name === base) ? [base, grain] : [name, ''];
}

export function Builder({ db, smq, setSmq, catalog, errors, filterPreset }) {
  const { dimensions, measures } = catalog;
  const update = (key, value) => setSmq({ ...smq, [key]: value });
  const outputs = [...smq.group_by, ...smq.metrics];
  const unplaced = errors.filter((e) => !/^(metrics|group_by|filters|order_by)\[\d+\]$|^limit$/.test(e.location?.field || ''));
  return (
    <form class="builder" aria-label="Query builder" onSubmit={(e) => e.preventDefault()}>
      {unplaced.length > 0 && (
        <div class="field-error" role="alert">
          {unplaced.map((e, i) => <p key={i}>{e.location?.field ? <code>{e.location.field}</code> : null} {e.message}
            {e.suggestions?.length ? ` — did you mean ${e.suggestions.join(', ')}?` : ''}</p>)}
        </div>
      )}
      <fieldset>
        <legend>Metrics</legend>
        <ul class="rows">
          {smq.metrics.map((m, i) => (
            <li key={`${m}-${i}`} class="row-item">
              <div class="row-controls"><code class="grow">{m}</code>
                <button type="button" class="icon" aria-label={`Remove metric ${m}`}
                  onClick={() => update('metrics', smq.metrics.filter((_, j) => j !== i))}>×</button></div>
              <FieldErrors errors={errors} field={`metrics[${i}]`}
                fix={(v) => update('metrics', smq.metrics.map((x, j) => (j === i ? v : x)))} />
            </li>
          ))}
        </ul>
        <label class="sr-only" for="add-metric">Add a metric</label>
        <select id="add-metric" value="" onChange={(e) => {
          const v = e.currentTarget.value;
          if (v && !smq.metrics.includes(v)) update('metrics', [...smq.metrics, v]);
        }}>
          <option value="">+ add a metric or measure…</option>
          {measures.map((m) => <option key={m.name} value={m.name}>{m.name}</option>)}
        </select>
      </fieldset>

      <fieldset>
        <legend>Group by</legend>
        <ul class="rows">
          {smq.group_by.map((g, i) => {
            const [base, grain] = splitGrain(g, dimensions);
            const dim = dimensions.find((d) => d.name === base);
            return (
              <li key={`${g}-${i}`} class="row-item">
                <div class="row-controls"><code class="grow">{base}</code>
                  {dim?.grains?.length > 0 && (
                    <>
                      <label class="sr-only" for={`grain-${i}`}>Grain of {base}</label>
                      <select id={`grain-${i}`} value={grain} onChange={(e) => {
                        const v = e.currentTarget.value;
                        update('group_by', smq.group_by.map((x, j) => (j === i ? (v ? `${base}__${v}` : base) : x)));
                      }}>
                        <option value="">no grain</option>
                        {dim.grains.map((gr) => <option key={gr} value={gr}>{gr}</option>)}
                      </select>
                    </>
                  )}
                  <button type="button" class="icon" aria-label={`Remove group by ${g}`}
                    onClick={() => update('group_by', smq.group_by.filter((_, j) => j !== i))}>×</button></div>
                <FieldErrors errors={errors} field={`group_by[${i}]`}
                  fix={(v) => update('group_by', smq.group_by.map((x, j) => (j === i ? v : x)))} />
              </li>
            );
          })}
        </ul>
        <label class="sr-only" for="add-group">Add a group-by</label>
        <select id="add-group" value="" onChange={(e) => {
          const v = e.currentTarget.value;
          if (v && !smq.group_by.includes(v)) update('group_by', [...smq.group_by, v]);
        }}>
          <option value="">+ group by a dimension…</option>
          {dimensions.map((d) => <option key={d.name} value={d.name}>{d.name}</option>)}
        </select>
      </fieldset>

      <fieldset>
        <legend>Filters</legend>
        <ul class="rows">
          {smq.filters.map((f, i) => (
            <FilterRow key={i} db={db} index={i} filter={f} dimensions={dimensions} errors={errors}
              onChange={(v) => update('filters', smq.filters.map((x, j) => (j === i ? v : x)))}
              onRemove={() => update('filters', smq.filters.filter((_, j) => j !== i))} />
          ))}
        </ul>
        <NewFilter db={db} dimensions={dimensions} preset={filterPreset} onAdd={(f) => update('filters', [...smq.filters, f])} />
      </fieldset>

      <fieldset>
        <legend>Order and limit</legend>
        <ul class="rows">
          {smq.order_by.map((o, i) => {
            const desc = o.startsWith('-');
            const name = desc ? o.slice(1) : o;
            return (
              <li key={`${o}-${i}`} class="row-item">
                <div class="row-controls"><code class="grow">{name}</code>
                  <button type="button" aria-label={`Order of ${name}: ${desc ? 'descending' : 'ascending'}; switch`}
                    onClick={() => update('order_by', smq.order_by.map((x, j) => (j === i ? (desc ? name : `-${name}`) : x)))}>
                    {desc ? '↓ desc' : '↑ asc'}</button>
                  <button type="button" class="icon" aria-label={`Remove order by ${name}`}
                    onClick={() => update('order_by', smq.order_by.filter((_, j) => j !== i))}>×</button></div>
                <FieldErrors errors={errors} field={`order_by[${i}]`}
                  fix={(v) => update('order_by', smq.order_by.map((x, j) => (j === i ? (desc ? `-${v}` : v) : x)))} />
              </li>
            );
          })}
        </ul>
        <div class="row-controls">
          <label class="sr-only" for="add-order">Order by</label>
          <select id="add-order" value="" onChange={(e) => {
            const v = e.currentTarget.value;
            if (v) update('order_by', [...smq.order_by, v]);
          }}>
            <option value="">+ order by…</option>
            {outputs.map((o) => <option key={o} value={`-${o}`}>{o} (descending)</option>)}
            {outputs.map((o) => <option key={`a-${o}`} value={o}>{o} (ascending)</option>)}
          </select>
          <label for="limit">Limit</label>
          <input id="limit" type="number" min="1" class="narrow" value={smq.limit ?? ''}
            onChange={(e) => update('limit', e.currentTarget.value === '' ? null : Number(e.currentTarget.value))} />
        </div>
        <FieldErrors errors={errors} field="limit" />
      </fieldset>
    </form>
  );
}
