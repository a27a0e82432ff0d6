// The SMQ as JSON text: JSON syntax errors and the service's validation errors are shown on the line
// their `location.field` points at (line numbers in the gutter, the line marked).
import { useEffect, useState } from 'preact/hooks';
import { cleanSmq, fromJson, lineOfField } from './smq.js';

export function JsonEditor({ smq, setSmq, errors }) {
  const pretty = JSON.stringify(cleanSmq(smq), null, 2);
  const [text, setText] = useState(pretty);
  const [syntax, setSyntax] = useState(null);
  useEffect(() => {
    // follow outside changes (builder, catalog) unless the text already means the same query
    try {
      if (JSON.stringify(cleanSmq(fromJson(JSON.parse(text)))) === JSON.stringify(cleanSmq(smq))) return;
    } catch { /* the text does not parse: replace it */ }
    setText(pretty);
    setSyntax(null);
  }, [pretty]);
  const onInput = (value) => {
    setText(value);
    try {
      const parsed = JSON.parse(value);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('an SMQ is a JSON object');
      setSyntax(null);
      setSmq(fromJson(parsed));
    } catch (err) {
      const at = /position (\d+)/.exec(err.message);
      const line = at ? value.slice(0, Number(at[1])).split('\n').length : /line (\d+)/.exec(err.message)?.[1];
      setSyntax({ message: err.message, line: line ? Number(line) : null });
    }
  };
  const marks = syntax ? [{ line: syntax.line, message: `JSON: ${syntax.message}` }]
    : errors.map((e) => ({ line: lineOfField(text, e.location?.field), message: `${e.location?.field ? `${e.location.field}: ` : ''}${e.message}${e.suggestions?.length ? ` — did you mean ${e.suggestions.join(', ')}?` : ''}` }));
  const lines = text.split('\n');
  const marked = new Set(marks.map((m) => m.line).filter(Boolean));
  return (
    <div class="json-editor">
      <div class="editor-wrap">
        <pre class="gutter" aria-hidden="true">{lines.map((_, i) => <span key={i} class={marked.has(i + 1) ? 'marked' : ''}>{i + 1}{'\n'}</span>)}</pre>
        <label class="sr-only" for="smq-json">SMQ as JSON</label>
        <textarea id="smq-json" class="mono" spellcheck={false} rows={Math.max(8, lines.length + 1)} value={text}
          aria-invalid={marks.length > 0} aria-describedby="smq-json-errors"
          onInput={(e) => onInput(e.currentTarget.value)} />
      </div>
      <ul id="smq-json-errors" class="json-errors" aria-live="polite">
        {marks.map((m, i) => <li key={i} role="alert">{m.line ? <strong>line {m.line}: </strong> : null}{m.message}</li>)}
      </ul>
    </div>
  );
}
