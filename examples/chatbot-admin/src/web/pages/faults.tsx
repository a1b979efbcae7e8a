// The fake AI provider's fault knobs, so the retry-safety contracts can be tried from the UI: arm
// a rule for the next matching request(s), see what is armed, clear it. A demo control: there is
// one provider, so a rule applies to whichever tenant's call matches it next.
import { useEffect, useState } from 'react';
import { api } from '../api.js';
import { FAULT_CALLS, FAULT_NAMES, FAULTS, type FaultName } from '../../provider/fault-names.js';
import { useSession } from '../session.js';

interface Rule {
  fault: FaultName;
  call?: (typeof FAULT_CALLS)[number];
  jobId?: string;
  unitKey?: string;
  times: number;
  delayMs: number;
}

const EMPTY = {
  fault: 'commit-then-drop' as FaultName,
  call: '',
  unitKey: '',
  times: 1,
  delayMs: 2000,
};

export function Faults() {
  const { apiKey } = useSession();
  const [rules, setRules] = useState<Rule[]>();
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState('');
  const show = (p: Promise<{ faults: Rule[] }>) =>
    p.then(
      (r) => (setRules(r.faults), setError('')),
      (e: Error) => setError(e.message),
    );
  useEffect(() => void show(api(apiKey, '/api/faults')), [apiKey]);
  const arm = () => {
    const rule: Rule = {
      fault: form.fault,
      ...(form.call ? { call: form.call as Rule['call'] } : {}),
      ...(form.unitKey.trim() ? { unitKey: form.unitKey.trim() } : {}),
      times: form.times,
      delayMs: form.delayMs,
    };
    void show(api(apiKey, '/api/faults', [...(rules ?? []), rule]));
  };
  const set = (patch: Partial<typeof EMPTY>) => setForm((f) => ({ ...f, ...patch }));
  return (
    <section className="faults">
      <h2>Fault knobs</h2>
      <p>
        Make the fake AI provider misbehave on its next matching request, and watch what Sluice
        does: a lost answer goes to review, a failed intent job fails the document, failing polls
        end in the dead letters. The provider is shared: a rule applies to every tenant.
      </p>
      <form
        className="fault-form"
        onSubmit={(e) => {
          e.preventDefault();
          arm();
        }}
      >
        <label>
          Fault
          <select value={form.fault} onChange={(e) => set({ fault: e.target.value as FaultName })}>
            {FAULT_NAMES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Call
          <select value={form.call} onChange={(e) => set({ call: e.target.value })}>
            <option value="">any</option>
            {FAULT_CALLS.map((call) => (
              <option key={call} value={call}>
                {call}
              </option>
            ))}
          </select>
        </label>
        <label>
          Unit
          <input
            value={form.unitKey}
            placeholder="any (e.g. page-02)"
            onChange={(e) => set({ unitKey: e.target.value })}
          />
        </label>
        <label>
          Times
          <input
            type="number"
            min={1}
            value={form.times}
            onChange={(e) => set({ times: Math.max(1, Number(e.target.value) || 1) })}
          />
        </label>
        {form.fault === 'slow' && (
          <label>
            Delay (ms)
            <input
              type="number"
              min={0}
              max={60000}
              value={form.delayMs}
              onChange={(e) => set({ delayMs: Math.max(0, Number(e.target.value) || 0) })}
            />
          </label>
        )}
        <button type="submit">Arm fault</button>
      </form>
      <p className="hint">{FAULTS[form.fault]}</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h3>
        Armed{' '}
        <button className="secondary" onClick={() => void show(api(apiKey, '/api/faults'))}>
          Refresh
        </button>
      </h3>
      {rules === undefined ? (
        <p>Loading…</p>
      ) : rules.length === 0 ? (
        <p className="empty">No faults armed.</p>
      ) : (
        <>
          <table className="armed">
            <thead>
              <tr>
                <th>Fault</th>
                <th>Call</th>
                <th>Unit</th>
                <th>Times left</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r, i) => (
                <tr key={i} data-fault={r.fault}>
                  <td>
                    {r.fault}
                    {r.fault === 'slow' ? ` (${r.delayMs} ms)` : ''}
                  </td>
                  <td>{r.call ?? 'any'}</td>
                  <td>{r.unitKey ?? 'any'}</td>
                  <td>{r.times}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <button className="secondary" onClick={() => void show(api(apiKey, '/api/faults', []))}>
            Clear all
          </button>
        </>
      )}
    </section>
  );
}
