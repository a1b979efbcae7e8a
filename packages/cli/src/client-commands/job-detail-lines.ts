// How `sluice jobs show` prints a job's detail: a few sections of tab-separated lines (the job,
// attempts, units, ledger, assets, events), or the whole detail as JSON with --json.

import type { JobDetail } from '@sluice/contracts';
import { jobLine } from './job-lines.js';

export function detailLines(d: JobDetail): string[] {
  const j = d.job;
  const out = [jobLine(j)];
  if (j.tags.length) out.push(`tags\t${j.tags.join(', ')}`);
  if (Object.keys(j.metadata).length) out.push(`metadata\t${JSON.stringify(j.metadata)}`);
  if (j.error) out.push(`error\t${j.error.message}`);
  out.push('', `attempts (${d.attempts.length})`);
  for (const a of d.attempts) {
    out.push(
      `  #${a.attempt}\tepoch ${a.epoch ?? '-'}\tworker ${a.worker ?? '-'}\t${a.startedAt} → ${a.endedAt ?? 'running'}\t${a.outcome ?? ''}${a.reason ? `\t${a.reason}` : ''}`,
    );
  }
  out.push('', `units (${d.units.length})`);
  for (const u of d.units) out.push(`  ${u.unitKey ?? u.step}\tepoch ${u.epoch}\t${u.createdAt}`);
  out.push('', `provider calls (${d.bills.calls}, ${d.bills.billed} may have billed)`);
  for (const c of d.calls) {
    out.push(
      `  ${c.unitKey}\t${c.provider}/${c.modality}\t${c.callName}\t${c.callClass}\t${c.outcome}${c.billed ? '\tbilled' : ''}\tkey ${c.idempotencyKey ?? '-'}\text ${c.externalId ?? '-'}${c.authorisedBy ? `\tby ${c.authorisedBy}: ${c.note ?? ''}` : ''}`,
    );
  }
  out.push('', `assets (${d.assets.length})`);
  for (const a of d.assets)
    out.push(`  ${a.name}\t${a.unit ?? '-'}\t${a.size} B\t${a.contentType}`);
  out.push('', `events (${d.events.length})`);
  for (const e of d.events) {
    const what = 'to' in e ? `${e.from ?? '-'} → ${e.to}` : e.type;
    out.push(`  ${e.seq}\t${e.at}\t${what}${'reason' in e && e.reason ? `\t${e.reason}` : ''}`);
  }
  return out;
}
