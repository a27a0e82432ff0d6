// The public REST API (docs/service.md), nothing else: every call sends the key from sessionStorage, every
// failure becomes an ApiError carrying the problem+json body (code, detail, errors[].location.field).

const KEY_STORE = 'smq.apiKey';

export const getKey = () => sessionStorage.getItem(KEY_STORE) || '';
export const setKey = (key) => (key ? sessionStorage.setItem(KEY_STORE, key) : sessionStorage.removeItem(KEY_STORE));

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem.code || 'http_error';
  }
  /** the error items, each {code, message, location: {field?}, suggestions} */
  get items() {
    return this.problem.errors || [{ code: this.code, message: this.message, location: {}, suggestions: [] }];
  }
}

function headers(json) {
  const h = { Accept: 'application/json, application/problem+json' };
  if (json) h['Content-Type'] = 'application/json';
  const key = getKey();
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch {
    return { title: response.statusText, detail: `HTTP ${response.status}` };
  }
}

async function send(method, path, body) {
  const response = await fetch(`/v1${path}`, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  return response;
}

export async function call(method, path, body) {
  return (await send(method, path, body)).json();
}

/** The rollups a /query answer was read from, as its Server-Timing header names them (`rollup;desc="a,b"`). */
export function rollupsOf(serverTiming) {
  const found = /(?:^|,)\s*rollup;desc="([^"]*)"/.exec(serverTiming || '');
  return found ? found[1].split(',').filter(Boolean) : [];
}

async function query(name, smq, limit, offset) {
  const response = await send('POST', `${db(name)}/query`, { smq, limit, offset });
  return { ...(await response.json()), rollups: rollupsOf(response.headers.get('server-timing')) };
}

const db = (name) => `/databases/${encodeURIComponent(name)}`;

export const api = {
  databases: () => call('GET', '/databases'),
  sqlApi: () => call('GET', '/sql-api'),
  database: (name) => call('GET', db(name)),
  elements: (name) => call('POST', `${db(name)}/elements`, {}),
  compile: (name, smq, dialect) => call('POST', `${db(name)}/compile`, { smq, ...(dialect ? { dialect } : {}), preview: false }),
  query: (name, smq, limit, offset = 0) => query(name, smq, limit, offset),  // its rows, and `rollups`: which answered
  values: (name, body) => call('POST', `${db(name)}/values`, body),
  groupByOptions: (name, metrics) => call('POST', `${db(name)}/group-by-options`, { metrics }),
  execute: (name, sql) => call('POST', `${db(name)}/execute`, { sql }),
  tool: (name, tool, args) => call('POST', `${db(name)}/tools/${tool}`, args || {}),
  answers: (name, runId, answers, trace = false) => call('POST', `${db(name)}/ask/${encodeURIComponent(runId)}/answers`, { answers, include_trace: trace }),
};

/** POST /ask/stream and call onEvent(event, data) per server-sent event (EventSource cannot POST). */
export async function askStream(name, body, onEvent, signal) {
  const response = await fetch(`/v1${db(name)}/ask/stream`, {
    method: 'POST', headers: headers(true), body: JSON.stringify(body), signal,
  });
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(event, JSON.parse(data.join('\n')));
    }
  }
}
