// Catches a renewal that does not compare the owner (BullMQ's removeLock shape: compare, then act):
// a holder paused past its lease renews after another consumer took the delivery over. The
// renewal must answer `lost` and leave the delivery with the new holder — an unconditional
// renewal (`XCLAIM … 0` without the owner check, an embedded lease renewed by job id alone)
// would take it back. Valkey Streams: the consumer's owner-checked renew (the embedded case is
// the worker's own).
import {
  formatJobId,
  type Delivery,
  type MessagePointer,
  type RuntimeConsumer,
} from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { useStreamsFixture } from './testing/streams-xp-suite.js';

const LEASE_MS = 1500;
const versions = [{ kind: 'xp.renew', version: 'v1' }];

async function readOne(c: RuntimeConsumer): Promise<Delivery> {
  return waitFor(async () => (await c.read(1))[0], { timeoutMs: 15_000, message: 'a delivery' });
}

describeEachDialect('renewal checks the owner', () => {
  const fx = useStreamsFixture();

  for (const runtime of ['streams'] as const) {
    it(
      `a holder paused past its lease renews after a takeover: lost, the new holder keeps it [${runtime}]`,
      { timeout: 60_000 },
      async () => {
        const make = (workerId: string): RuntimeConsumer =>
          fx().consumer({
            workerId,
            versions,
            leaseMs: LEASE_MS,
            claimEveryMs: 100,
            blockMs: 100,
          });
        const pointer: MessagePointer = {
          jobId: formatJobId('v1'),
          kind: 'xp.renew',
          version: 'v1',
          tenantId: 'acme',
        };
        const a = make(`owner-a-${runtime}`);
        const b = make(`taker-b-${runtime}`);
        try {
          await a.init();
          await fx().dispatch([pointer]);
          const held = await readOne(a);
          // A stops renewing (paused) past its lease; B takes the delivery over.
          await sleep(LEASE_MS + 300);
          await b.init();
          const taken = await readOne(b);
          expect(taken.pointer?.jobId).toBe(pointer.jobId);

          expect(await a.renew([held])).toEqual(['lost']);
          // B still holds it: its renewal keeps it, and a second late renewal of A changes nothing.
          expect(await b.renew([taken])).toEqual(['renewed']);
          expect(await a.renew([held])).toEqual(['lost']);
          expect(await b.renew([taken])).toEqual(['renewed']);
        } finally {
          await a.close();
          await b.close();
        }
      },
    );
  }
});
