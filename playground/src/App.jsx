// The playground: a database picker, saved views and API key (header), the layer's catalog (side), and
// four views (main): the query builder with SQL, rows and charts; the SMQ as JSON; the join graph; the agent.
// The database, view, dialect, chart type and query live in the URL hash, so a URL shares the view, and
// a saved view is such a hash (kept in localStorage, listed in the header).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, getKey, setKey } from './api.js';
import { Ask } from './Ask.jsx';
import { Builder, splitGrain } from './Builder.jsx';
import { Catalog } from './Catalog.jsx';
import { Chart } from './Chart.jsx';
import { JoinGraph } from './JoinGraph.jsx';
import { JsonEditor } from './JsonEditor.jsx';
import { Table } from './Table.jsx';
import { SavedViews } from './SavedViews.jsx';
import { cleanSmq, emptySmq, readHash, viewHash, writeHash } from './smq.js';

const DIALECTS = ['duckdb', 'sqlite', 'postgres', 'mysql', 'snowflake', 'bigquery', 'trino', 'spark', 'databricks', 'clickhouse'];  // engine/dialects (tests/service/test_playground_dialects.py)
const TABS = [['query', 'Query'], ['json', 'JSON'], ['graph', 'Join graph'], ['ask', 'Ask the agent']];
const ROW_CAP = 1000;

function KeyField({ onChange }) {
  const [value, setValue] = useState(getKey());
  return (
    <form class="key-form" onSubmit={(e) => { e.preventDefault(); setKey(value.trim()); onChange(); }}>
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" value={value} placeholder="none (open server)"
        onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit">Use key</button>
    </form>
  );
}

function Tabs({ tab, setTab }) {
  const refs = useRef({});
  const onKey = (e, i) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (e.key === 'Home' || e.key === 'End' || step) {
      e.preventDefault();
      const next = e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : (i + step + TABS.length) % TABS.length;
      setTab(TABS[next][0]);
      refs.current[TABS[next][0]]?.focus();
    }
  };
  return (
    <div role="tablist" aria-label="Views" class="tabs">
      {TABS.map(([id, label], i) => (
        <button key={id} ref={(el) => { refs.current[id] = el; }} role="tab" id={`tab-${id}`} aria-controls={`panel-${id}`}
          aria-selected={tab === id} tabIndex={tab === id ? 0 : -1} onClick={() => setTab(id)} onKeyDown={(e) => onKey(e, i)}>{label}</button>
      ))}
    </div>
  );
}

function useDebounced(value, ms) {
  const [out, setOut] = useState(value);
  useEffect(() => { const t = setTimeout(() => setOut(value), ms); return () => clearTimeout(t); }, [value, ms]);
  return out;
}

// a saved query's SMQ as the builder holds it: lists where the builder expects lists
const cleanSaved = (query) => Object.fromEntries(Object.entries(query).map(
  ([k, v]) => [k, k !== 'limit' && typeof v === 'string' ? [v] : v]));

export function App() {
  const initial = useMemo(readHash, []);
  const [keyVersion, setKeyVersion] = useState(0);
  const [databases, setDatabases] = useState(null);
  const [fatal, setFatal] = useState(null);
  const [db, setDb] = useState(initial.db || '');
  const [info, setInfo] = useState(null);
  const [models, setModels] = useState([]);
  const [saved, setSaved] = useState([]);  // the database's saved queries (saved_queries.yml), from /elements
  const [search, setSearch] = useState('');
  const [smq, setSmq] = useState(initial.smq || emptySmq());
  const [dialect, setDialect] = useState(initial.dialect || '');
  const [tab, setTab] = useState(TABS.some(([id]) => id === initial.tab) ? initial.tab : 'query');
  const [compiled, setCompiled] = useState({ sql: '', errors: [], pending: false });
  const [result, setResult] = useState(null);
  const [filterPreset, setFilterPreset] = useState(null);
  const [chart, setChart] = useState(initial.chart || 'auto');
  const [groupOptions, setGroupOptions] = useState(null);
  const [pathChoice, setPathChoice] = useState(null);
  const [sqlApi, setSqlApi] = useState(null);
  const runId = useRef(0);

  useEffect(() => {
    setFatal(null);
    api.databases().then(({ databases: list }) => {
      setDatabases(list);
      if (!list.some((d) => d.name === db)) setDb(list[0]?.name || '');
    }).catch((err) => { setDatabases([]); setFatal(err); });
    api.sqlApi().then(setSqlApi).catch(() => setSqlApi(null));
  }, [keyVersion]);

  useEffect(() => {
    if (!db) return;
    setInfo(null); setModels([]); setSaved([]);
    api.database(db).then(setInfo).catch(setFatal);
    api.elements(db).then((r) => { setModels(r.models); setSaved(r.saved_queries || []); }).catch(setFatal);
  }, [db, keyVersion]);

  useEffect(() => writeHash({ db, smq, dialect, tab, chart }), [db, smq, dialect, tab, chart]);
  useEffect(() => {
    // a saved view (or a pasted link) opens in place
    const open = () => {
      const view = readHash();
      if (view.db) setDb(view.db);
      setSmq(view.smq || emptySmq());
      setDialect(view.dialect || '');
      setTab(TABS.some(([id]) => id === view.tab) ? view.tab : 'query');
      setChart(view.chart || 'auto');
    };
    window.addEventListener('hashchange', open);
    return () => window.removeEventListener('hashchange', open);
  }, []);

  const catalog = useMemo(() => ({
    dimensions: models.flatMap((m) => m.dimensions || []),
    measures: [...models.flatMap((m) => m.metrics || []), ...models.flatMap((m) => m.measures || [])],
  }), [models]);
  // name -> element (format, additive, type), for the charts
  const elements = useMemo(() => Object.fromEntries([...catalog.dimensions, ...catalog.measures].map((e) => [e.name, e])), [catalog]);

  // the spellings each dimension may take as a group-by next to the metrics (join paths where needed)
  const metricsKey = JSON.stringify(smq.metrics);
  const settledMetrics = useDebounced(`${db}|${metricsKey}`, 250);
  useEffect(() => {
    if (!db) return undefined;
    let live = true;
    api.groupByOptions(db, smq.metrics).then((r) => live && setGroupOptions(r.dimensions)).catch(() => live && setGroupOptions(null));
    return () => { live = false; };
  }, [settledMetrics, keyVersion]);
  const options = groupOptions || catalog.dimensions.map((d) => ({ name: d.name, type: d.type, status: 'ok', options: [{ spelling: d.name, via: [] }] }));

  const clean = JSON.stringify(cleanSmq(smq));
  const settled = useDebounced(`${db}|${dialect}|${clean}`, 250);
  useEffect(() => {
    const [name, dia, text] = [db, dialect, clean];
    const query = JSON.parse(text);
    const id = ++runId.current;
    if (!name || (!query.metrics && !query.group_by)) {
      setCompiled({ sql: '', errors: [], pending: false });
      setResult(null);
      return;
    }
    setCompiled((c) => ({ ...c, pending: true }));
    const problemItems = (err) => (err instanceof ApiError ? err.items : [{ message: String(err), location: {} }]);
    api.compile(name, query, dia || undefined).then((r) => {
      if (id !== runId.current) return;
      setCompiled({ sql: r.sql, dialect: r.dialect, errors: [], pending: false });
      return api.query(name, query, ROW_CAP).then((rows) => {
        if (id === runId.current) setResult({ ...rows, groupCount: (query.group_by || []).length, filterCount: (query.filters || []).length, error: null });
      });
    }).catch((err) => {
      if (id !== runId.current) return;
      setCompiled({ sql: '', errors: problemItems(err), pending: false });
      setResult(null);
    });
  }, [settled]);

  const onAdd = (kind, name) => {
    if (kind === 'metric' && !smq.metrics.includes(name)) setSmq({ ...smq, metrics: [...smq.metrics, name] });
    if (kind === 'group_by') {
      const found = options.find((d) => d.name === name);
      if (found?.status === 'ambiguous') setPathChoice({ name, options: found.options });  // whose country?
      else if (!smq.group_by.includes(name)) setSmq({ ...smq, group_by: [...smq.group_by, name] });
    }
    if (kind === 'filter') setFilterPreset({ name, at: Date.now() });
    if (tab !== 'query' && tab !== 'json') setTab('query');
  };

  // the time grain of a time axis (the first group-by), changed next to the chart
  const grainControl = useMemo(() => {
    const first = smq.group_by[0];
    if (!first) return null;
    const [base, grain] = splitGrain(first, catalog.dimensions);
    const dim = catalog.dimensions.find((d) => d.name === base.split('.').pop());
    if (!dim?.grains?.length) return null;
    return { value: grain, grains: dim.grains,
      onChange: (g) => setSmq({ ...smq, group_by: smq.group_by.map((x, j) => (j === 0 ? (g ? `${base}__${g}` : base) : x)) }) };
  }, [smq, catalog]);

  return (
    <div class="app">
      <header class="top" role="banner">
        <h1>SMQ playground</h1>
        <div class="db-pick">
          <label for="database">Database</label>
          <select id="database" value={db} onChange={(e) => { setDb(e.currentTarget.value); setSmq(emptySmq()); setDialect(''); setGroupOptions(null); }}>
            {(databases || []).map((d) => <option key={d.name} value={d.name}>{d.name} ({d.dialect}, {d.status})</option>)}
          </select>
        </div>
        <SavedViews current={viewHash({ db, smq, dialect, tab, chart })} />
        <KeyField onChange={() => setKeyVersion((v) => v + 1)} />
        {/* the spot for the SQL API's connection string (service/pgwire): a component of its own beside the key */}
        <a href="/docs" class="docs-link">API docs</a>
      </header>
      {fatal && (
        <div class="field-error banner" role="alert">
          <p><strong>{fatal.code || 'error'}</strong>: {fatal.message}</p>
          {fatal.status === 401 && <p>This server needs an API key: enter it above.</p>}
        </div>
      )}
      <div class="layout">
        <aside class="side" aria-label="Catalog">
          {info && <p class="desc db-desc">{info.description}</p>}
          {info && sqlApi?.enabled && (
            <p class="hint sql-api" aria-label="SQL API connection">
              SQL clients (psql, JDBC, BI tools): <code class="mono">{`postgresql://USER@${sqlApi.host}:${sqlApi.port}/${db}`}</code>
              {' '}(password: {sqlApi.password}; docs/sql-api.md)
            </p>
          )}
          <Catalog models={models} search={search} onSearch={setSearch} onAdd={onAdd}
            saved={saved} onSaved={(q) => setSmq({ ...emptySmq(), ...cleanSaved(q.query) })} />
        </aside>
        <main class="main" id="main">
          <Tabs tab={tab} setTab={setTab} />
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="panel">
            {tab === 'query' && <Builder db={db} smq={smq} setSmq={setSmq} catalog={catalog} errors={compiled.errors} filterPreset={filterPreset}
              groupOptions={options} pathChoice={pathChoice} setPathChoice={setPathChoice} />}
            {tab === 'json' && <JsonEditor smq={smq} setSmq={setSmq} errors={compiled.errors} />}
            {tab === 'graph' && db && <JoinGraph db={db} />}
            {tab === 'ask' && db && <Ask db={db} />}
          </div>
          {(tab === 'query' || tab === 'json') && (
            <section class="results" aria-label="Results">
              {result && (
                <>
                  <Chart result={result} elements={elements} choice={chart} onChoice={setChart} grain={grainControl} />
                  {result.truncated && <p class="hint">Only the first {result.rows.length} rows are shown (set a limit).</p>}
                  {result.rollups?.length > 0 && (
                    <p class="hint rollups" role="status" aria-label="Answered from rollups">
                      Answered from {result.rollups.length > 1 ? 'rollups' : 'rollup'} {result.rollups.map((r, i) => <>{i > 0 && ', '}<code class="mono">{r}</code></>)}
                      {' '}(pre-aggregated rows the engine proved give the same answer as the facts).
                    </p>
                  )}
                  {!result.rows.length && result.filterCount > 0 && <p class="hint" role="status">No row matches the filters (a value that no row has is marked at its filter).</p>}
                  <Table columns={result.columns} rows={result.rows} fields={result.fields} caption="Query rows" fileName={`${db}-query.csv`} />
                </>
              )}
              <div class="sql-head">
                <h2 class="section-title">SQL</h2>
                <label for="dialect">Dialect</label>
                <select id="dialect" value={dialect} onChange={(e) => setDialect(e.currentTarget.value)}>
                  <option value="">{info ? `${info.dialect} (the database's)` : "the database's"}</option>
                  {DIALECTS.map((d) => <option key={d} value={d}>{d}</option>)}
                </select>
                <button type="button" onClick={() => navigator.clipboard?.writeText(compiled.sql)} disabled={!compiled.sql}>Copy SQL</button>
                {compiled.pending && <span class="hint">compiling…</span>}
              </div>
              {compiled.sql ? <pre class="sql mono" aria-label="Compiled SQL" data-dialect={compiled.dialect}>{compiled.sql}</pre>
                : <p class="hint">{compiled.errors.length ? 'The query does not compile: see the errors at the fields above.' : 'Pick a metric or a group-by to start.'}</p>}
              {result && dialect && dialect !== info?.dialect && <p class="hint">The rows come from the database's own dialect ({info?.dialect}).</p>}
            </section>
          )}
        </main>
      </div>
    </div>
  );
}
