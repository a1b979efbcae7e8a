// The Streams consumer against a real redis-server: the transport semantics the conformance
// suite cannot see from the database side. Each case names the bug it catches.

import { parseXPendingRange } from '../replies.js';
import { sleep, waitFor } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { createStreamsFixture, testPointer } from '../testing/streams-fixture.js';
import { useStreamsFixture } from '../testing/streams-xp-suite.js';

describe('valkey-streams consumer', () => {
  const fx = useStreamsFixture();
  const v1 = (kind: string) => [{ kind, version: 'v1' }];

  it('never hands out more than max, even when several streams have entries', async () => {
    // Catches COUNT being applied per stream: 2 versions × COUNT 3 would give 6 to a read of 3.
    const kind = 't.max';
    const versions = [...v1(kind), { kind, version: 'v2' }];
    const c = fx().consumer({ workerId: 'max-a', versions });
    await c.init();
    const ps = [...Array(5)].flatMap(() => [testPointer(kind), testPointer(kind, 'v2')]);
    await fx().dispatch(ps);
    const seen: string[] = [];
    for (let i = 0; i < 6 && seen.length < ps.length; i++) {
      const got = await c.read(3);
      expect(got.length).toBeLessThanOrEqual(3);
      seen.push(...got.map((d) => d.pointer?.jobId ?? ''));
      await c.ack(got);
    }
    expect(seen.sort()).toEqual(ps.map((p) => p.jobId).sort());
    await c.close();
  });

  it('a renewal never takes an entry back from the consumer that claimed it', async () => {
    // Catches an unconditional `XCLAIM … 0` renewal: a paused consumer that wakes up would
    // steal its entry back, and its ack would finish the new owner's work.
    const kind = 't.owner';
    const a = fx().consumer({ workerId: 'own-a', versions: v1(kind) });
    const b = fx().consumer({ workerId: 'own-b', versions: v1(kind) });
    await Promise.all([a.init(), b.init()]);
    const [p] = [testPointer(kind)];
    await fx().dispatch([p]);
    const [held] = await a.read(1);
    expect(held?.pointer?.jobId).toBe(p.jobId);
    await sleep(800); // past the 700 ms idle threshold: "a" is paused
    const claimed = await waitFor(async () => {
      const got = await b.read(1);
      return got.length > 0 ? got : undefined;
    });
    expect(claimed.map((d) => d.entryId)).toEqual([held?.entryId]);
    expect(await a.renew([held!])).toEqual(['lost']);
    await a.ack([held!]);
    const stream = fx().keys.jobs(kind, 'v1');
    const pel = parseXPendingRange(
      await fx().redis.xpending(stream, fx().keys.group, '-', '+', 10),
    );
    expect(pel.map((e) => e.consumer)).toEqual(['own-b']);
    expect(await b.renew(claimed)).toEqual(['renewed']);
    await b.ack(claimed);
    expect(await fx().pendingCount(stream)).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });

  it('a claim sweep takes at most claimCount entries, then waits for the next sweep', async () => {
    // Catches an unbounded XAUTOCLAIM: a restart would pull every idle entry of a dead consumer
    // at once and overload the claimer.
    const kind = 't.bounded';
    const dead = fx().consumer({ workerId: 'bound-dead', versions: v1(kind) });
    await dead.init();
    await fx().dispatch(Array.from({ length: 5 }, () => testPointer(kind)));
    expect(await dead.read(5)).toHaveLength(5);
    await sleep(750);
    const live = fx().consumer({
      workerId: 'bound-live',
      versions: v1(kind),
      claimCount: 2,
      claimEveryMs: 60_000,
    });
    await live.init();
    const first = await live.read(10);
    expect(first).toHaveLength(2);
    expect(await live.read(10)).toEqual([]);
    expect((await live.stats()).counters.claims).toBe(2);
    await live.ack(first);
    await Promise.all([dead.close(), live.close()]);
  });

  it('own pending entries come back first after a restart, with their transport delivery count', async () => {
    const kind = 't.ownfirst';
    const first = fx().consumer({ workerId: 'restart-a', versions: v1(kind) });
    await first.init();
    const ps = [testPointer(kind), testPointer(kind)];
    await fx().dispatch(ps);
    expect((await first.read(2)).map((d) => d.transportDeliveries)).toEqual([1, 1]);
    await first.close(); // dies without acknowledging
    await fx().dispatch([testPointer(kind)]);
    const again = fx().consumer({ workerId: 'restart-a', versions: v1(kind) });
    await again.init();
    const got = await again.read(5);
    expect(got.map((d) => d.pointer?.jobId)).toEqual(ps.map((p) => p.jobId));
    expect(got.map((d) => d.transportDeliveries)).toEqual([2, 2]);
    expect((await again.read(5)).length).toBe(1); // then the new one
    await again.close();
  });

  it('trimmed or deleted pending entries come back without a pointer and leave the PEL when acked', async () => {
    // F8: XREADGROUP returns `[id, null]` for a deleted pending entry, XAUTOCLAIM lists it as a
    // third reply element; a parser that drops either leaves the PEL growing forever.
    const kind = 't.deleted';
    const stream = fx().keys.jobs(kind, 'v1');
    const a = fx().consumer({ workerId: 'del-a', versions: v1(kind) });
    await a.init();
    await fx().dispatch([testPointer(kind), testPointer(kind), testPointer(kind)]);
    const got = await a.read(3);
    await a.close();
    await fx().redis.xdel(stream, got[0]!.entryId, got[1]!.entryId);
    const restarted = fx().consumer({ workerId: 'del-a', versions: v1(kind) });
    await restarted.init();
    const own = await restarted.read(1);
    expect(own.map((d) => [d.entryId, d.pointer])).toEqual([[got[0]!.entryId, null]]);
    await restarted.ack(own);
    await restarted.close();
    await sleep(750);
    const b = fx().consumer({ workerId: 'del-b', versions: v1(kind) });
    await b.init();
    const claimed = await b.read(5);
    expect(claimed.map((d) => [d.entryId, d.pointer === null])).toEqual([
      [got[2]!.entryId, false],
      [got[1]!.entryId, true],
    ]);
    await b.ack(claimed);
    expect(await fx().pendingCount(stream)).toBe(0);
    expect((await b.stats?.())?.counters.claimedDeleted).toBe(1);
    await b.close();
  });

  it('trimming never removes pending or undelivered entries', async () => {
    // Redis 7.0 MAXLEN/XTRIM drops pending entries; MINID must stay below the oldest pending
    // and the last delivered id.
    const kind = 't.trim';
    const stream = fx().keys.jobs(kind, 'v1');
    const c = fx().consumer({ workerId: 'trim-a', versions: v1(kind), maintainEveryMs: 50 });
    await c.init();
    const ps = Array.from({ length: 10 }, () => testPointer(kind));
    await fx().dispatch(ps);
    const first = await c.read(4);
    await c.ack(first.slice(0, 2));
    await waitFor(async () => (await fx().redis.xlen(stream)) === 8, { message: 'trimmed to 8' });
    await sleep(200);
    expect(await fx().redis.xlen(stream)).toBe(8); // the two pending and six undelivered stay
    await c.ack(first.slice(2));
    await waitFor(async () => (await fx().redis.xlen(stream)) === 7, { message: 'trimmed to 7' });
    const rest = await c.read(10);
    expect(rest.map((d) => d.pointer?.jobId)).toEqual(ps.slice(4).map((p) => p.jobId));
    await c.ack(rest);
    // Everything finished: only the last delivered entry stays (MINID keeps the cut itself).
    await waitFor(async () => (await fx().redis.xlen(stream)) === 1, { message: 'trimmed to 1' });
    expect((await c.stats()).counters.trimmed).toBe(9);
    await c.close();
  });

  it('after the server lost everything, held work renews under the database lease and a requeue still lands', async () => {
    // Catches a drain or renewal right after a restart without persistence: NOGROUP must not
    // abort healthy attempts nor drop a job given back, and reading recreates the group.
    const lossy = await createStreamsFixture();
    try {
      const kind = 't.lost';
      const c = lossy.consumer({ workerId: 'lost-a', versions: v1(kind) });
      await c.init();
      const [p] = [testPointer(kind)];
      await lossy.dispatch([p]);
      const [held] = await c.read(1);
      await lossy.server.restart({ persistence: 'none' });
      await waitFor(() => c.renew([held!]).catch(() => undefined), { message: 'reconnected' });
      expect(await c.renew([held!])).toEqual(['renewed']);
      await c.release([held!], 0);
      const again = await waitFor(async () => {
        const got = await c.read(1).catch(() => []);
        return got.length > 0 ? got : undefined;
      });
      expect(again.map((d) => d.pointer?.jobId)).toEqual([p.jobId]);
      expect((await c.stats()).counters.groupRecreations).toBe(1);
      await c.ack(again);
      await c.close();
    } finally {
      await lossy.dispose();
    }
  });

  it('release(0) requeues at the end, release(delay) only acks, deadLetter keeps the reason', async () => {
    const kind = 't.finish';
    const stream = fx().keys.jobs(kind, 'v1');
    const c = fx().consumer({ workerId: 'fin-a', versions: v1(kind) });
    await c.init();
    const ps = [testPointer(kind), testPointer(kind), testPointer(kind)];
    await fx().dispatch(ps);
    const [r0, rd, dl] = await c.read(3);
    await c.release([r0!], 0);
    await c.release([rd!], 5000);
    await c.deadLetter(dl!, 'MAX_ATTEMPTS');
    expect(await fx().pendingCount(stream)).toBe(0);
    const again = await c.read(3);
    expect(again.map((d) => d.pointer?.jobId)).toEqual([ps[0]!.jobId]);
    const dead = await fx().redis.xrange(fx().keys.deadLetters(kind, 'v1'), '-', '+');
    expect(dead).toHaveLength(1);
    const fields = dead[0]![1];
    expect(fields.slice(0, 8)).toEqual([
      'jobId',
      ps[2]!.jobId,
      'kind',
      kind,
      'version',
      'v1',
      'tenantId',
      'acme',
    ]);
    expect(fields[fields.indexOf('reason') + 1]).toBe('MAX_ATTEMPTS');
    await c.ack(again);
    await c.close();
  });

  it('an entry that is not a pointer is dead-lettered by the consumer and never handed out', async () => {
    const kind = 't.malformed';
    const stream = fx().keys.jobs(kind, 'v1');
    const c = fx().consumer({ workerId: 'bad-a', versions: v1(kind) });
    await c.init();
    await fx().redis.xadd(stream, '*', 'hello', 'world');
    const [good] = [testPointer(kind)];
    await fx().dispatch([good]);
    const got = await c.read(5);
    expect(got.map((d) => d.pointer?.jobId)).toEqual([good.jobId]);
    await c.ack(got);
    expect(await fx().pendingCount(stream)).toBe(0);
    const dead = await fx().redis.xrange(fx().keys.deadLetters(kind, 'v1'), '-', '+');
    expect(dead[0]![1].slice(0, 4)).toEqual(['hello', 'world', 'reason', 'BAD_POINTER']);
    await c.close();
  });

  it('publishes events, heartbeats served versions, and reports stats', async () => {
    const kind = 't.misc';
    const c = fx().consumer({ workerId: 'misc-a', versions: v1(kind) });
    await c.init();
    expect(await c.servedVersions(kind)).toEqual(['v1']);
    expect(await c.servedVersions('t.nobody')).toEqual([]);
    const p = testPointer(kind);
    const event = {
      type: 'state',
      jobId: p.jobId,
      seq: 2,
      at: new Date().toISOString(),
      from: 'accepted',
      to: 'queued',
      attempt: 0,
    };
    await c.publishEvents?.([{ tenantId: 'acme', kind, event: event as never }]);
    const published = await fx().redis.xrange(fx().keys.events, '-', '+');
    expect(published.at(-1)?.[1].slice(0, 4)).toEqual(['t', 'acme', 'k', kind]);
    await fx().dispatch([p, testPointer(kind)]);
    await c.read(1);
    const stats = await c.stats?.();
    expect(stats?.queues).toEqual([
      expect.objectContaining({
        kind,
        version: 'v1',
        length: 2,
        pending: 1,
        lag: 1,
        maxDeliveries: 1,
      }),
    ]);
    expect(stats?.queues[0]?.consumers).toEqual([
      expect.objectContaining({ name: 'misc-a', pending: 1 }),
    ]);
    await c.close();
  });
});
