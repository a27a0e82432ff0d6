// The layer's elements by model, searchable by name or description, each with buttons that put it into
// the query (a measure or metric as a metric; a dimension as a group-by or a filter).
import { useMemo } from 'preact/hooks';

const short = (name) => name.split('__').slice(1).join('__') || name;

function matches(element, term) {
  return !term || element.name.toLowerCase().includes(term) || (element.description || '').toLowerCase().includes(term);
}

function Element({ element, kind, onAdd }) {
  const type = element.type || element.agg || '';
  return (
    <li class="element">
      <div class="element-head">
        <code class="element-name" title={element.name}>{kind === 'metric' ? element.name : short(element.name)}</code>
        <span class={`badge badge-${kind}`}>{kind}</span>
        {type && <span class="badge">{type}</span>}
      </div>
      {element.description && <p class="desc">{element.description}</p>}
      <div class="element-actions">
        {kind === 'dimension' ? (
          <>
            <button type="button" onClick={() => onAdd('group_by', element.name)} aria-label={`Group by ${element.name}`}>+ group by</button>
            <button type="button" onClick={() => onAdd('filter', element.name)} aria-label={`Filter on ${element.name}`}>+ filter</button>
          </>
        ) : (
          <button type="button" onClick={() => onAdd('metric', element.name)} aria-label={`Add metric ${element.name}`}>+ metric</button>
        )}
      </div>
    </li>
  );
}

export function Catalog({ models, search, onSearch, onAdd, saved = [], onSaved }) {
  const term = search.trim().toLowerCase();
  const shown = useMemo(() => models.map((model) => {
    const sections = [
      ['metric', model.metrics || []], ['measure', model.measures || []], ['dimension', model.dimensions || []],
    ].map(([kind, list]) => [kind, list.filter((e) => matches(e, term))]);
    const modelHit = term && (model.name.toLowerCase().includes(term) || (model.description || '').toLowerCase().includes(term));
    const count = sections.reduce((n, [, list]) => n + list.length, 0);
    return { model, sections, visible: !term || modelHit || count > 0, open: Boolean(term) && count > 0 };
  }), [models, term]);
  const visible = shown.filter((s) => s.visible);
  return (
    <nav class="catalog" aria-label="Models and elements">
      <label class="field">
        <span>Search elements</span>
        <input type="search" value={search} placeholder="name or description, e.g. revenue"
          onInput={(e) => onSearch(e.currentTarget.value)} />
      </label>
      {saved.length > 0 && (
        <details class="model saved-queries" open>
          <summary><strong>Saved queries</strong></summary>
          <ul class="elements">{saved.map((q) => (
            <li key={q.name}><button type="button" class="link" title={q.description || q.name}
              onClick={() => onSaved(q)}>{q.label || q.name}</button></li>
          ))}</ul>
        </details>
      )}
      <p class="hint" aria-live="polite">{visible.length} of {models.length} models</p>
      {visible.map(({ model, sections, open }) => (
        <details key={model.name} open={open} class="model">
          <summary><strong>{model.name}</strong></summary>
          {model.description && <p class="desc">{model.description}</p>}
          {sections.map(([kind, list]) => list.length > 0 && (
            <section key={kind} aria-label={`${model.name} ${kind}s`}>
              <h3 class="kind">{kind}s</h3>
              <ul class="elements">{list.map((e) => <Element key={e.name} element={e} kind={kind} onAdd={onAdd} />)}</ul>
            </section>
          ))}
        </details>
      ))}
    </nav>
  );
}
