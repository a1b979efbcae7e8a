// The served-versions check reads the registry once per expiry however many submits are in
// flight (single-flight), and still never dead-letters a job on an answer read before its
// request began: a worker that heartbeats while a shared read is in flight is seen.
import { heartbeatServed, removeServed, servedVersions } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterEach, expect, it } from 'vitest';
import { createServedVersionCheck } from './served-versions.js';

describeEachDialect('served-versions check', (ctx) => {
  let reads = 0;
  let hold: Promise<void> | undefined;
  // The real registry, counted, and held on demand (to overlap a read with a heartbeat).
  const runtime = {
    async servedVersions(kind: string) {
      reads++;
      const gate = hold;
      const versions = await servedVersions(ctx().database.db, kind);
      await gate;
      return versions;
    },
  };
  afterEach(async () => {
    reads = 0;
    hold = undefined;
    for (const w of ['w1', 'w2']) await removeServed(ctx().database.db, w);
  });

  it('shares one registry read among the submits in flight when the cache expires', async () => {
    await heartbeatServed(ctx().database.db, 'w1', [{ kind: 'k', version: 'v1' }], 60_000);
    const check = createServedVersionCheck(runtime, 1000);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => check('k', 'v1', `v1-${i}`)),
    );
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(reads).toBe(1);
    await check('k', 'v1', 'v1-x');
    expect(reads).toBe(1);
  });

  it('confirms a dead letter with a read begun after the request, even while sharing', async () => {
    const db = ctx().database.db;
    await heartbeatServed(db, 'w2', [{ kind: 'k', version: 'v2' }], 60_000);
    for (const ttl of [0, 1000]) {
      reads = 0;
      const check = createServedVersionCheck(runtime, ttl);
      let release = () => {};
      hold = new Promise<void>((r) => (release = r));
      // A: its read sees only v2 and is held in flight.
      const a = check('k', 'v1', 'v1-a');
      await new Promise((r) => setTimeout(r, 50));
      hold = undefined;
      // A worker for v1 starts; B arrives while A's read is still in flight and shares it.
      await heartbeatServed(db, 'w1', [{ kind: 'k', version: 'v1' }], 60_000);
      const b = check('k', 'v1', 'v1-b');
      release();
      // A's own read began after A: dead-lettered on it. B's did not: read again, routed.
      expect(await a).toMatchObject({ ok: false, reason: 'VERSION_NOT_ROUTABLE' });
      expect(await b).toEqual({ ok: true, version: 'v1' });
      expect(reads).toBe(2);
      await removeServed(db, 'w1');
    }
  });
});
