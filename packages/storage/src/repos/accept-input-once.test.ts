// The accept serializes a job's input once: the row's `input` column and the pointer's snapshot
// carry the same JSON text, so the second use reads the first's. Counted through the input's own
// `toJSON`, which JSON.stringify calls once per serialization; on SQLite and PostgreSQL, through
// each dialect's accept statement.
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { acceptedSnapshot, type AcceptedJob } from './accept-rows.js';
import { insertAcceptedJobs } from './accept-jobs.js';
import { formatJobId } from '@sluice/contracts';

describeEachDialect('accept', (ctx) => {
  it('an accepted input is serialized once for its row and its pointer snapshot', async () => {
    let serialized = 0;
    const input = {
      toJSON() {
        serialized += 1;
        return { text: 'hello' };
      },
    };
    const job: AcceptedJob = {
      id: formatJobId('v1'),
      tenantId: 'acme',
      kind: 'k',
      version: 'v1',
      input,
      inputHash: `h-${Math.random()}`,
      maxAttempts: 3,
      outcome: { to: 'queued' },
    };
    const written = await ctx().database.transaction((tx) => insertAcceptedJobs(tx, [job]));
    const snapshot = acceptedSnapshot(job, written.events[0]?.event.at as string);
    expect(snapshot?.inputJson).toBe('{"text":"hello"}');
    const row = await ctx()
      .database.db.selectFrom('jobs')
      .select('input')
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(typeof row.input === 'string' ? JSON.parse(row.input) : row.input).toEqual({
      text: 'hello',
    });
    expect(serialized).toBe(1);
  });
});
