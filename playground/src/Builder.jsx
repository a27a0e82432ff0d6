// Build an SMQ by clicking: metrics, group-bys with a grain, filters (Filters.jsx: every structured
// operator, values from the data), order and limit. The group-by list offers only spellings that compile
// next to the chosen metrics (POST /group-by-options): an ambiguous dimension (a customer's or a
// supplier's country) is offered once per join path, never by its plain name. Errors of the last compile
// are shown beside the field their `location.field` names (metrics[0], filters[1], ...).
import { NewFilter, StructuredFilter, TextFilter } from './Filters.jsx';
import { sentIndex } from './smq.js';

export const GRAINS = ['day', 'week', 'month', 'quarter', 'year'];

/** The errors of one field; each suggestion is a button that puts it in place (`fix`). */
function FieldErrors({ errors, field, fix, prefix = false }) {
  const mine = field === null ? [] : errors.filter((e) => {
    const at = e.location?.field || '';
    return at === field || (prefix && at.startsWith(`${field}.`));
  });
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

/** A join path's spelling shown with the models it walks. */
const via = (option) => (option.via.length > 2 ? ` via ${option.via.slice(1, -1).join(' › ')}` : '');

/** Choose the join path of an ambiguous dimension (asked when it is added from the catalog). */
export function PathChoice({ choice, onPick, onCancel }) {
  return (
    <div class="path-choice" role="group" aria-label={`Join path for ${choice.name}`}>
      <p><strong>{choice.name}</strong> is reached by {choice.options.length} join paths next to these metrics: whose is it?</p>
      <ul class="rows">
        {choice.options.map((o) => (
          <li key={o.spelling}><button type="button" class="suggestion" onClick={() => onPick(o.spelling)}>{o.spelling}</button>
            <span class="hint"> {o.via.join(' › ')}</span></li>
        ))}
      </ul>
      <button type="button" onClick={onCancel}>Cancel</button>
    </div>
  );
}

/** [the group-by without its grain, the grain] (a join path's dimension is looked up by its element). */
export function splitGrain(name, dims) {
  const known = (n) => dims.some((d) => d.name === n.split('.').pop());
  if (known(name)) return [name, ''];
  const cut = name.lastIndexOf('__');
  const base = name.slice(0, cut);
  const grain = name.slice(cut + 2);
  return GRAINS.includes(grain) && known(base) ? [base, grain] : [name, ''];
}

function GroupOptions({ options }) {
  return options.map((d) => {
    if (d.status === 'ambiguous') {
      return (
        <optgroup key={d.name} label={`${d.name}: whose? pick a join path`}>
          {d.options.map((o) => <option key={o.spelling} value={o.spelling}>{d.name}{via(o)}</option>)}
        </optgroup>
      );
    }
    if (d.status === 'unusable') return <option key={d.name} value="" disabled title={d.message}>{d.name} (not with these metrics)</option>;
    return <option key={d.name} value={d.name}>{d.name}</option>;
  });
}

export function Builder({ db, smq, setSmq, catalog, errors, filterPreset, groupOptions, pathChoice, setPathChoice }) {
  const { dimensions, measures } = catalog;
  const filterable = [...dimensions.map((d) => ({ ...d, kind: 'dimension' })), ...measures.map((m) => ({ ...m, kind: 'measure' }))];
  const update = (key, value) => setSmq({ ...smq, [key]: value });
  const outputs = [...smq.group_by, ...smq.metrics];
  const unplaced = errors.filter((e) => !/^(metrics|group_by|order_by)\[\d+\]$|^filters\[\d+\](\..*)?$|^limit$/.test(e.location?.field || ''));
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
            const dim = dimensions.find((d) => d.name === base.split('.').pop());
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
          <GroupOptions options={groupOptions} />
        </select>
        {pathChoice && <PathChoice choice={pathChoice} onCancel={() => setPathChoice(null)} onPick={(v) => {
          setPathChoice(null);
          if (!smq.group_by.includes(v)) update('group_by', [...smq.group_by, v]);
        }} />}
      </fieldset>

      <fieldset>
        <legend>Filters</legend>
        <ul class="rows">
          {smq.filters.map((f, i) => {
            const sent = sentIndex(smq.filters, i);
            const field = sent === null ? null : `filters[${sent}]`;
            const props = {
              db, index: i, filter: f, key: i,
              onChange: (v) => update('filters', smq.filters.map((x, j) => (j === i ? v : x))),
              onRemove: () => update('filters', smq.filters.filter((_, j) => j !== i)),
            };
            const fieldErrors = <FieldErrors errors={errors} field={field} prefix fix={typeof f === 'string' ? (v, e) => props.onChange(fixFilter(f, v, e)) : (v, e) => {
              const at = (e.location?.field || '').split('.').pop();
              props.onChange(at === 'member' || at === 'operator' ? { ...f, [at]: v } : f);
            }} />;
            if (typeof f === 'string') {
              return <TextFilter {...props} invalid={errors.some((e) => field && (e.location?.field || '').startsWith(field))}>{fieldErrors}</TextFilter>;
            }
            const member = String(f.member || '').split('.').pop();
            return <StructuredFilter {...props} element={filterable.find((e) => e.name === member)}>{fieldErrors}</StructuredFilter>;
          })}
        </ul>
        <NewFilter db={db} elements={filterable} preset={filterPreset} onAdd={(f) => update('filters', [...smq.filters, f])} />
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
