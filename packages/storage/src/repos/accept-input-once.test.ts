// The accept serializes a job's input once: the row's `input` column and the pointer's snapshot
// carry the same JSON text, so the second use reads the first's. Counted through the input's own
// `toJSON`, which JSON.stringify calls once per serialization.
import { expect, it } from 'vitest';
import { acceptStatement, acceptedSnapshot, jobsInsert, type AcceptedJob } from './accept-rows.js';

it('an accepted input is serialized once for its row and its pointer snapshot', () => {
  let serialized = 0;
  const input = {
    toJSON() {
      serialized += 1;
      return { text: 'hello' };
    },
  };
  const job: AcceptedJob = {
    id: 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa',
    tenantId: 'acme',
    kind: 'k',
    version: 'v1',
    input,
    inputHash: 'h',
    maxAttempts: 3,
    outcome: { to: 'queued' },
  };
  const q = acceptStatement(true);
  const at = '2026-12-06T00:00:00.000Z';
  jobsInsert(q, [job], at);
  const snapshot = acceptedSnapshot(job, at);
  expect(snapshot?.inputJson).toBe('{"text":"hello"}');
  expect(q.params).toContain('{"text":"hello"}');
  expect(serialized).toBe(1);
});
