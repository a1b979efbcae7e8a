// The job detail's long tables: the event timeline, the stored checkpoints and the ledger.
import type { JobDetail } from '@sluice/contracts/wire';
import { Time } from './ui.js';

function describe(e: JobDetail['events'][number]): string {
  if ('to' in e) return `→ ${e.to}${e.reason ? ` (${e.reason})` : ''}`;
  if (e.type === 'progress') return `progress ${JSON.stringify(e.data)}`;
  return e.type;
}

export function Timeline(props: { events: JobDetail['events'] }) {
  return (
    <div className="panel">
      <h3>Timeline</h3>
      <ol className="timeline">
        {props.events.map((e) => (
          <li key={e.seq} data-type={e.type}>
            <Time at={e.at} /> <span>{describe(e)}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function Units(props: { units: JobDetail['units'] }) {
  return (
    <div className="panel">
      <h3>Units and checkpoints ({props.units.length})</h3>
      <table className="units">
        <thead>
          <tr>
            <th>Step</th>
            <th>Epoch</th>
            <th>Stored</th>
            <th>Checkpoint</th>
          </tr>
        </thead>
        <tbody>
          {props.units.map((u) => (
            <tr key={u.step} data-step={u.step} data-epoch={u.epoch}>
              <td>{u.step}</td>
              <td>{u.epoch}</td>
              <td>
                <Time at={u.createdAt} />
              </td>
              <td>
                <code className="clip">
                  {u.assetKey ? `asset ${u.assetKey}` : JSON.stringify(u.result)}
                </code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Ledger(props: { calls: JobDetail['calls']; bills: JobDetail['bills'] }) {
  return (
    <div className="panel">
      <h3>
        Provider calls: <span data-testid="bills">{props.bills.billed}</span> billed of{' '}
        {props.bills.calls}
      </h3>
      <table className="ledger">
        <thead>
          <tr>
            <th>Unit</th>
            <th>Call</th>
            <th>Provider</th>
            <th>Outcome</th>
            <th>Billed</th>
            <th>Attempt / epoch</th>
            <th>Authorised by</th>
            <th>At</th>
          </tr>
        </thead>
        <tbody>
          {props.calls.map((c) => (
            <tr key={c.id} data-call={c.callName} data-outcome={c.outcome} data-billed={c.billed}>
              <td>{c.unitKey}</td>
              <td>{c.callName}</td>
              <td>{c.provider}</td>
              <td>{c.outcome}</td>
              <td>{c.billed ? 'yes' : 'no'}</td>
              <td>
                {c.attempt} / {c.epoch}
              </td>
              <td>{c.authorisedBy ? `${c.authorisedBy}: ${c.note ?? ''}` : ''}</td>
              <td>
                <Time at={c.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
