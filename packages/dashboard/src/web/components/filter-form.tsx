// The filter form of the jobs search: submitting writes the filter into the URL (so the view can
// be saved or shared); the page reads it back from there.
import { JOB_STATES } from '@sluice/contracts/wire';
import { useState } from 'react';
import { FILTER_KEYS, type FilterParams } from '../filters.js';
import { navigate } from '../route.js';

const FIELDS: [keyof FilterParams, string, string][] = [
  ['kind', 'Kind', 'render.video'],
  ['tag', 'Tags', 'customer-42, urgent'],
  ['meta', 'Metadata', 'region=eu, batch'],
  ['after', 'Created after', '2026-01-31T00:00'],
  ['before', 'Created before', ''],
  ['error', 'Error text', 'timeout'],
];

export function FilterForm(props: { path: string; value: FilterParams }) {
  const [draft, setDraft] = useState(props.value);
  const set = (k: keyof FilterParams, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  return (
    <form
      className="filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(props.path, Object.fromEntries(FILTER_KEYS.map((k) => [k, draft[k].trim()])));
      }}
    >
      {FIELDS.map(([k, label, placeholder]) => (
        <label key={k}>
          {label}
          <input
            name={k}
            type={k === 'after' || k === 'before' ? 'datetime-local' : 'text'}
            value={draft[k]}
            placeholder={placeholder}
            onChange={(e) => set(k, e.target.value)}
          />
        </label>
      ))}
      <label>
        State
        <select name="state" value={draft.state} onChange={(e) => set('state', e.target.value)}>
          <option value="">any</option>
          {JOB_STATES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
          <option value="failed,dead_lettered">failed or dead-lettered</option>
        </select>
      </label>
      <button type="submit">Search</button>
    </form>
  );
}
