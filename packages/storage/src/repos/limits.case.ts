// Catches a shared limit that lets two holders both see room (more than `max` slots held, or more
// tokens taken than the bucket holds), that never frees a crashed holder's slot, or that refills
// faster than its rate. Counts, never wall time: the clock is passed in.
import { expect } from 'vitest';
import { suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { acquireSlot, releaseSlot, slotsHeld, takeToken } from './limits.js';

/** The suite, for every database (limits.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function limitsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  it('a slot is taken while fewer than max are held, freed by release or by its expiry', async () => {
    const { database } = ctx();
    const t0 = 1_000_000;
    const slot = (holder: string, now = t0) =>
      acquireSlot(database, { key: 'provider:s1', holder, max: 2, ttlMs: 1_000, now });
    expect([await slot('a'), await slot('b'), await slot('c')]).toEqual([true, true, false]);
    await releaseSlot(database, 'provider:s1', 'a');
    expect(await slot('c')).toBe(true);
    expect(await slot('d', t0 + 500)).toBe(false);
    // b and c lapse (their holders died): the slots come back without a release
    expect(await slot('d', t0 + 1_001)).toBe(true);
    expect(await slotsHeld(database, 'provider:s1', t0 + 1_001)).toBe(1);
  });

  it('racing acquirers on three handles never hold more than max slots at once', async () => {
    const test = ctx();
    const handles = [test.database, test.open(), test.open()];
    let held = 0;
    let most = 0;
    let served = 0;
    const worker = async (n: number) => {
      const database = handles[n % handles.length] as (typeof handles)[number];
      const holder = `h${n}`;
      while (
        !(await acquireSlot(database, { key: 'provider:race', holder, max: 2, ttlMs: 60_000 }))
      )
        await new Promise((r) => setTimeout(r, 2));
      held++;
      most = Math.max(most, held);
      // Held long enough that another acquirer's retry lands inside it even under load (at 3 ms
      // a loaded machine's round trips let every holder finish alone: `most` stayed 1).
      await new Promise((r) => setTimeout(r, 25));
      held--;
      served++;
      await releaseSlot(database, 'provider:race', holder);
    };
    await Promise.all(Array.from({ length: 24 }, (_, n) => worker(n)));
    expect(served).toBe(24);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
  });

  it('a token bucket gives burst at once, then perSecond per second of its clock', async () => {
    const { database } = ctx();
    const t0 = 5_000_000;
    const take = (now: number) => takeToken(database, { key: 'provider:tb', perSecond: 10, now });
    const count = async (n: number, now: number) => {
      let got = 0;
      for (let i = 0; i < n; i++) if (await take(now)) got++;
      return got;
    };
    expect(await count(15, t0)).toBe(10);
    expect(await count(15, t0 + 500)).toBe(5);
    expect(await count(15, t0 + 500)).toBe(0);
    // a clock that goes back (another replica's) refills nothing
    expect(await count(5, t0 + 100)).toBe(0);
    expect(await count(15, t0 + 10_000)).toBe(10);
  });

  it('concurrent takers on three handles take no more tokens than the bucket holds', async () => {
    const test = ctx();
    const handles = [test.database, test.open(), test.open()];
    const now = 9_000_000;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        takeToken(handles[n % 3] as (typeof handles)[number], {
          key: 'provider:tb-race',
          perSecond: 4,
          burst: 7,
          now,
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(7);
  });
  done();
}
