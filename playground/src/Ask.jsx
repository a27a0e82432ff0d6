// Ask the agent (POST /ask/stream): each think-act turn appears as its `turn` event arrives; a run that
// needs clarification shows its questions, answered at /ask/{run_id}/answers; the final SQL opens as a
// query (run at /execute, shown as rows, chart and CSV).
import { useRef, useState } from 'preact/hooks';
import { api, askStream } from './api.js';
import { Table } from './Table.jsx';

function TurnItem({ turn }) {
  return (
    <li class={`turn turn-${turn.outcome}`}>
      <div class="turn-head"><strong>Turn {turn.index}</strong> <code>{turn.tool || 'no call'}</code> <span class="badge">{turn.outcome}</span></div>
      {turn.reasoning && <p>{turn.reasoning}</p>}
      {turn.summary && <p class="hint">{turn.summary}</p>}
      {turn.arguments && <details><summary>arguments</summary><pre class="mono">{JSON.stringify(turn.arguments, null, 2)}</pre></details>}
    </li>
  );
}

export function Ask({ db }) {
  const [question, setQuestion] = useState('');
  const [clarify, setClarify] = useState(true);
  const [turns, setTurns] = useState([]);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [running, setRunning] = useState(false);
  const [answers, setAnswers] = useState({});
  const [opened, setOpened] = useState(null);
  const abort = useRef(null);

  const finish = (body) => {
    setResult(body);
    if (body.trace_detail?.turns) setTurns(body.trace_detail.turns);
    setAnswers({});
  };

  const ask = async (e) => {
    e.preventDefault();
    if (!question.trim()) return;
    setTurns([]); setResult(null); setError(null); setOpened(null); setRunning(true);
    abort.current = new AbortController();
    try {
      await askStream(db, { question, clarify }, (event, data) => {
        if (event === 'turn') setTurns((t) => [...t, data]);
        else if (event === 'result') finish(data);
      }, abort.current.signal);
    } catch (err) {
      if (err.name !== 'AbortError') setError(err);
    } finally {
      setRunning(false);
    }
  };

  const answer = async (e) => {
    e.preventDefault();
    setRunning(true); setError(null);
    try {
      finish(await api.answers(db, result.run_id, answers, true));
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  const open = async () => {
    setError(null);
    try {
      setOpened(await api.execute(db, result.sql));
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section class="ask" aria-label="Ask the agent">
      <form onSubmit={ask} class="ask-form">
        <label class="field" for="question"><span>Question</span></label>
        <textarea id="question" rows={3} value={question} placeholder="e.g. Which three countries placed the most orders in 2024?"
          onInput={(e) => setQuestion(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) ask(e); }} />
        <div class="row-controls">
          <label><input type="checkbox" checked={clarify} onChange={(e) => setClarify(e.currentTarget.checked)} /> let the agent ask me questions</label>
          <button type="submit" class="primary" disabled={running || !question.trim()}>{running ? 'Running…' : 'Ask'}</button>
          {running && <button type="button" onClick={() => abort.current?.abort()}>Stop</button>}
        </div>
      </form>
      {error && (
        <div class="field-error" role="alert">
          <p>{error.message}</p>
          {error.status === 503 && <p>The agent needs a language model: see docs/agent.md (GEMINI_API_KEY, or SMQ_PROVIDER=openai with OPENAI_BASE_URL).</p>}
        </div>
      )}
      <h2 class="section-title">Turns</h2>
      <ol class="turns" aria-live="polite" aria-label="Agent turns">{turns.map((t, i) => <TurnItem key={i} turn={t} />)}</ol>
      {result && (
        <div class="ask-result">
          <p><strong>Status:</strong> <span class="badge" data-status={result.status}>{result.status}</span>
            {result.reason && <span> — {result.reason}</span>}</p>
          {result.assumptions?.length > 0 && <ul>{result.assumptions.map((a, i) => <li key={i}>Assumed: {a}</li>)}</ul>}
          {result.status === 'needs_clarification' && result.questions && (
            <form class="clarify" onSubmit={answer} aria-label="Clarification questions">
              {result.questions.map((q, i) => (
                <label class="field" key={q}>
                  <span>{q}</span>
                  <input id={`answer-${i}`} value={answers[q] || ''} onInput={(e) => setAnswers({ ...answers, [q]: e.currentTarget.value })} />
                </label>
              ))}
              <button type="submit" class="primary" disabled={running}>Send answers</button>
            </form>
          )}
          {result.sql && (
            <>
              <h2 class="section-title">Final SQL</h2>
              <pre class="sql mono" aria-label="Final SQL">{result.sql}</pre>
              <button type="button" onClick={open}>Open the final SQL as a query</button>
            </>
          )}
          {opened && <Table columns={opened.columns} rows={opened.rows} caption="Rows of the final SQL" fileName={`${db}-agent.csv`} />}
          {!opened && result.columns?.length > 0 && <Table columns={result.columns} rows={result.rows} caption="Answer rows" fileName={`${db}-answer.csv`} />}
        </div>
      )}
    </section>
  );
}
