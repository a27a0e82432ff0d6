// Saved views: a view is its URL hash (database, query, chart type, dialect, tab), so saving one keeps
// that hash under a name in localStorage; each saved view is a link that opens it (a bookmark works too).
import { useState } from 'preact/hooks';

const STORE = 'smq.savedViews';

function load() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || '[]');
    return Array.isArray(list) ? list.filter((v) => v && typeof v.name === 'string' && typeof v.hash === 'string') : [];
  } catch {
    return [];
  }
}

export function SavedViews({ current }) {
  const [views, setViews] = useState(load);
  const [name, setName] = useState('');
  const keep = (list) => { localStorage.setItem(STORE, JSON.stringify(list)); setViews(list); };
  const save = (e) => {
    e.preventDefault();
    const title = name.trim();
    if (!title) return;
    keep([...views.filter((v) => v.name !== title), { name: title, hash: current }]);
    setName('');
  };
  return (
    <details class="saved-views">
      <summary>Saved views ({views.length})</summary>
      <form onSubmit={save} class="row-controls">
        <label for="view-name">View name</label>
        <input id="view-name" value={name} placeholder="e.g. revenue by country" onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" disabled={!name.trim()}>Save view</button>
      </form>
      <ul class="rows" aria-label="Saved views">
        {views.map((v) => (
          <li key={v.name} class="row-controls">
            <a href={v.hash}>{v.name}</a>
            <button type="button" class="icon" aria-label={`Forget view ${v.name}`} onClick={() => keep(views.filter((x) => x.name !== v.name))}>×</button>
          </li>
        ))}
      </ul>
    </details>
  );
}
