// Catches a consumer that stays in restart recovery while it drains a backlog: recovery (own
// running rows taken back first, with the jobs this process runs excluded) must end at the first
// claim that left none of the owner's running rows behind — one that took fewer running rows than
// it asked for — even when queued rows filled it. Staying in recovery made every claim of a
// drain scan the running rows and carry an exclude list of every job handed out so far (the
// embedded SQLite drain spent a fifth of its CPU there, growing with the backlog).

import { describe, expect, it } from 'vitest';
import { createEmbeddedConsumer } from './embedded.js';
import type { ClaimedDelivery, EmbeddedQueueStore } from './types.js';

type Claimed = ClaimedDelivery['claimed'];
type ClaimCall = { limit: number; includeOwn: boolean; exclude: readonly string[] };

let next = 0;
function claimed(from: 'queued' | 'running'): Claimed {
  const id = `v1-job${next++}`;
  const job = {
    id,
    tenantId: 't',
    kind: 'k',
    version: 'v1',
    input: null,
    fileIds: [],
    maxAttempts: 3,
    epoch: 1,
    attempts: 1,
    attemptId: 'a',
    lastSeq: 2,
  };
  return { job, from };
}

/** A store that answers each claim with the next scripted batch (then nothing). */
function scriptedStore(batches: Claimed[][]): { store: EmbeddedQueueStore; calls: ClaimCall[] } {
  const calls: ClaimCall[] = [];
  const store: EmbeddedQueueStore = {
    claim: async (limit, opts) => {
      calls.push({ limit, includeOwn: opts.includeOwn, exclude: [...opts.exclude] });
      return batches.shift() ?? [];
    },
    unclaim: async () => {},
    waitForWork: async () => {},
    heartbeat: async () => {},
    unregister: async () => {},
  };
  return { store, calls };
}

const consumerOf = (store: EmbeddedQueueStore) =>
  createEmbeddedConsumer({ store, pollMs: 1, blockMs: 1 });

describe('embedded consumer: restart recovery', () => {
  it('ends at a full claim of queued rows (a backlog), so later claims skip own rows', async () => {
    const { store, calls } = scriptedStore([
      [claimed('queued'), claimed('queued')],
      [claimed('queued'), claimed('queued')],
    ]);
    const consumer = consumerOf(store);
    expect(await consumer.read(2)).toHaveLength(2);
    expect(await consumer.read(2)).toHaveLength(2);
    expect(calls[0]).toEqual({ limit: 2, includeOwn: true, exclude: [] });
    expect(calls[1]).toEqual({ limit: 2, includeOwn: false, exclude: [] });
  });

  it('goes on while a claim is full of running rows, excluding what it handed out', async () => {
    const first = [claimed('running'), claimed('running')];
    const { store, calls } = scriptedStore([
      first,
      [claimed('running'), claimed('queued')],
      [claimed('queued')],
    ]);
    const consumer = consumerOf(store);
    await consumer.read(2);
    await consumer.read(2);
    await consumer.read(2);
    expect(calls[0]).toEqual({ limit: 2, includeOwn: true, exclude: [] });
    expect(calls[1]).toEqual({
      limit: 2,
      includeOwn: true,
      exclude: first.map((c) => c.job.id),
    });
    // The second claim took one running row of two asked for: none of ours was left.
    expect(calls[2]).toEqual({ limit: 2, includeOwn: false, exclude: [] });
  });
});
