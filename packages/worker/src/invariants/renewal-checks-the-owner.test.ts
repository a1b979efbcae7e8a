// Catches a renewal that does not compare the owner (BullMQ's removeLock shape: compare, then act):
// a holder paused past its lease renews after another consumer took the delivery over. The
// renewal must answer `lost` and leave the delivery with the new holder — an unconditional
// renewal (`XCLAIM … 0` without the owner check, an embedded lease renewed by job id alone)
// would take it back. Embedded (both dialects; a runtime package runs its own consumer's case):
// the claim is the lease in the job row, so the renewal the host makes for it (`extendLeases`,
// by job AND epoch) is the one that must refuse a holder whose job was claimed again.
import { formatJobId } from '@sluice/contracts';
import { claimJobs, insertJob, transitionJob, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { testHooks } from '../testing/seeded-bugs.js';

const LEASE_MS = 1500;
const versions = [{ kind: 'xp.renew', version: 'v1' }];

/** Embedded: a queued job, claimed by A, claimed again by B once A's lease lapsed. */
async function embeddedTakeover(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'xp.renew',
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 5,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  const claim = (owner: string) =>
    claimJobs(database, { versions, owner, leaseMs: LEASE_MS, limit: 1 });
  const [held] = await claim('owner-a');
  await sleep(LEASE_MS + 300);
  const [taken] = await claim('taker-b');
  return { id, held: held?.job.epoch ?? -1, taken: taken?.job.epoch ?? -1 };
}

describeEachDialect('renewal checks the owner', (ctx) => {
  it('a holder paused past its lease renews after a takeover: lost, the new holder keeps it [embedded]', async () => {
    const { database } = ctx();
    const { id, held, taken } = await embeddedTakeover(database);
    expect(taken).toBe(held + 1);
    const renew = async (epoch: number) =>
      (await testHooks().extendLeases(database.db, [{ id, epoch }], LEASE_MS)).has(id)
        ? 'renewed'
        : 'lost';
    expect(await renew(held)).toBe('lost');
    expect(await renew(taken)).toBe('renewed');
    expect(await renew(held)).toBe('lost');
    expect(await renew(taken)).toBe('renewed');
  });
});
