// Catches a renewal that does not compare the owner (BullMQ's removeLock shape: compare, then act):
// a holder paused past its lease renews after another consumer took the delivery over. The
// renewal must answer `lost` and leave the delivery with the new holder — an unconditional
// renewal (`XCLAIM … 0` without the owner check, an embedded lease renewed by job id alone)
// would take it back. Embedded (both dialects; a runtime package runs its own consumer's case):
// the claim is the lease in the job row, so the renewal the host makes for it (`extendLeases`,
// by job AND epoch) is the one that must refuse a holder whose job was claimed again.
import { describeEachDialect, takenOverTestJob } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { testHooks } from '../testing/seeded-bugs.js';

const LEASE_MS = 1500;

describeEachDialect('renewal checks the owner', (ctx) => {
  it('a holder paused past its lease renews after a takeover: lost, the new holder keeps it [embedded]', async () => {
    const { database } = ctx();
    const {
      id,
      zombie: held,
      holder: taken,
    } = await takenOverTestJob(database, 'xp.renew', LEASE_MS);
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
