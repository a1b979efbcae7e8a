// Priority bands of the Streams consumer against a real redis-server: a higher band is read
// before a lower band's backlog, the lowest non-empty band is still read within the aging bound,
// and own-pending recovery and claims cover the streams of every band. Each case names its bug.

import type { MessagePointer } from '@sluice/contracts';
import { sleep } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { testPointer } from '../testing/streams-fixture.js';
import { useStreamsFixture } from '../testing/streams-xp-suite.js';

describe('valkey-streams priority bands', () => {
  const fx = useStreamsFixture();
  const v1 = (kind: string) => [{ kind, version: 'v1' }];
  const at = (kind: string, priority: number, n: number): MessagePointer[] =>
    Array.from({ length: n }, () => ({ ...testPointer(kind), priority }));

  it('higher_band_read_before_a_lower_backlog: high, then normal, then low', async () => {
    // Catches one XREADGROUP over every band (oldest of all streams first) or a wrong band order.
    const kind = 't.band.order';
    const c = fx().consumer({ workerId: 'order-a', versions: v1(kind), lowBandEvery: 0 });
    await c.init();
    const low = at(kind, -3, 3);
    const normal = at(kind, 0, 3);
    const high = at(kind, 7, 2);
    await fx().dispatch([...low, ...normal, ...high]);
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 8; i++) {
      const got = await c.read(1);
      seen.push(...got.map((d) => d.pointer?.jobId));
      await c.ack(got);
    }
    expect(seen).toEqual([...high, ...normal, ...low].map((p) => p.jobId));
    await c.close();
  });

  it('lowest_band_read_within_the_aging_bound: every Nth read takes the lowest non-empty band', async () => {
    // Catches starvation: with a high band that never empties, a low job must still be read by
    // the Nth read (N = lowBandEvery), and not before it.
    const kind = 't.band.aging';
    const every = 4;
    const c = fx().consumer({ workerId: 'aging-a', versions: v1(kind), lowBandEvery: every });
    await c.init();
    const [low] = at(kind, -10, 1);
    await fx().dispatch([low!, ...at(kind, 5, 3 * every)]);
    const order: number[] = [];
    for (let i = 1; i <= 2 * every; i++) {
      const got = await c.read(1);
      if (got.some((d) => d.pointer?.jobId === low!.jobId)) order.push(i);
      await c.ack(got);
      await fx().dispatch(at(kind, 5, 1)); // the high band stays busy
    }
    expect(order).toEqual([every]);
    await c.close();
  });

  it('own_pending_and_claims_cover_every_band: nothing held in any band is stranded', async () => {
    // Catches recovery reading only one stream per version: an entry of a dead consumer in the
    // high or low band would stay pending forever.
    const kind = 't.band.recover';
    const first = fx().consumer({ workerId: 'rec-a', versions: v1(kind), lowBandEvery: 0 });
    await first.init();
    const ps = [...at(kind, 4, 1), ...at(kind, 0, 1), ...at(kind, -4, 1)];
    await fx().dispatch(ps);
    const held = [];
    for (let i = 0; i < 3; i++) held.push(...(await first.read(1)));
    expect(held.map((d) => d.pointer?.jobId)).toEqual(ps.map((p) => p.jobId));
    await first.close(); // dies without acknowledging
    // The same consumer restarted takes its own entries of every band back first.
    const again = fx().consumer({ workerId: 'rec-a', versions: v1(kind), lowBandEvery: 0 });
    await again.init();
    const own = await again.read(5);
    expect(new Set(own.map((d) => d.pointer?.jobId))).toEqual(new Set(ps.map((p) => p.jobId)));
    await again.close(); // dies again; now another consumer claims them once idle
    await sleep(750);
    const other = fx().consumer({ workerId: 'rec-b', versions: v1(kind), lowBandEvery: 0 });
    await other.init();
    const claimed = await other.read(5);
    expect(new Set(claimed.map((d) => d.pointer?.jobId))).toEqual(new Set(ps.map((p) => p.jobId)));
    await other.ack(claimed);
    for (const band of ['high', 'normal', 'low'] as const) {
      expect(await fx().pendingCount(fx().keys.jobs(kind, 'v1', band))).toBe(0);
    }
    await other.close();
  });
});
