// The typed client against the real gateway and an embedded worker, on SQLite and PostgreSQL:
// what a product app does (submit, watch, result, cancel), and how every way a job can end
// without an output reaches it as a typed error.
import { createApiKey } from '@sluice/storage';
import { WebSocket } from 'ws';
import { expect, it } from 'vitest';
import {
  createSluiceClient,
  isJobCancelledError,
  isJobDeadLetteredError,
  isJobFailedError,
  isJobNeedsReviewError,
  isSluiceApiError,
  type JobWatchEvent,
  type SluiceClient,
} from '../src/index.js';
import type { TestJobs } from './fixtures/jobs.js';
import { collect, describeStack, type Stack } from './fixtures/stack.js';

function clientOf(stack: Stack, apiKey = stack.apiKey): SluiceClient<TestJobs> {
  return createSluiceClient<TestJobs>({
    url: stack.url,
    apiKey,
    WebSocket,
    reconnect: { minMs: 20, maxMs: 200 },
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describeStack('client end to end', (stack) => {
  it('submit → watch (typed progress, in order) → typed result', async () => {
    await using client = disposable(clientOf(stack()));
    const handle = await client.submit('test.echo', { text: 'hello', steps: 4, stepMs: 20 });
    expect(handle).toMatchObject({ kind: 'test.echo', isDuplicate: false });
    const events: JobWatchEvent<TestJobs['test.echo']>[] = await collect(handle.watch());
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const progress = events.flatMap((e) => (e.type === 'progress' ? [e.data] : []));
    expect(progress).toEqual([1, 2, 3, 4].map((step) => ({ step, of: 4 })));
    const states = events.flatMap((e) => (e.type === 'state' ? [e.to] : []));
    expect(states.at(-1)).toBe('succeeded');
    expect(states).toContain('running');
    const output = await handle.result();
    expect(output).toEqual({ text: 'hello', steps: 4 });
    expect((await handle.status()).state).toBe('succeeded');
    // A finished job's watch replays its history and ends.
    expect(await collect(handle.watch())).toEqual(events);
    expect(await collect(handle.watch({ after: events.length - 1 }))).toEqual(events.slice(-1));
  });

  it('a delayed submit (delayMs / runAt as a Date) waits scheduled, then runs not before its time', async () => {
    await using client = disposable(clientOf(stack()));
    const submitted = Date.now();
    const handle = await client.submit('test.echo', { text: 'later', steps: 1 }, { delayMs: 800 });
    const status = await handle.status();
    expect(status.state).toBe('scheduled');
    expect(Date.parse(status.runAt ?? '')).toBeGreaterThanOrEqual(submitted + 800);
    const events = await collect(handle.watch());
    const states = events.flatMap((e) => (e.type === 'state' ? [e.to] : []));
    expect(states.slice(0, 3)).toEqual(['accepted', 'scheduled', 'queued']);
    expect(states.at(-1)).toBe('succeeded');
    const running = events.find((e) => e.type === 'state' && e.to === 'running');
    expect(Date.parse(running?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(status.runAt ?? ''));
    expect(await handle.result()).toEqual({ text: 'later', steps: 1 });
    const at = await client.submit(
      'test.echo',
      { text: 'at', steps: 1 },
      { runAt: new Date(Date.now() + 60_000) },
    );
    expect((await at.status()).state).toBe('scheduled');
    expect((await at.cancel()).state).toBe('cancelled');
  });

  it('a recurring schedule fires typed jobs that run; it can be paused, listed and deleted', async () => {
    await using client = disposable(clientOf(stack()));
    const s = await client.schedules.create(
      'test.echo',
      { text: 'cron', steps: 1 },
      { cron: '* * * * * *', name: 'e2e-every-second' },
    );
    expect(s).toMatchObject({ kind: 'test.echo', paused: false, missed: 'skip' });
    let fired: string[] = [];
    for (let i = 0; i < 100 && fired.length === 0; i++) {
      const page = await client.jobs.list({ kind: 'test.echo', limit: 100 });
      fired = page.items.filter((j) => j.createdAt >= s.createdAt).map((j) => j.id);
      if (fired.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(fired.length).toBeGreaterThan(0);
    expect(await client.job(fired[0] as string, 'test.echo').result()).toEqual({
      text: 'cron',
      steps: 1,
    });
    expect((await client.schedules.pause(s.id)).paused).toBe(true);
    expect((await client.schedules.list()).items.map((x) => x.id)).toContain(s.id);
    await client.schedules.delete(s.id);
    await expect(client.schedules.get(s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a repeated idempotency key gives the same job, marked as a duplicate', async () => {
    await using client = disposable(clientOf(stack()));
    const input = { text: 'once', steps: 1 };
    const first = await client.submit('test.echo', input, { idempotencyKey: 'k-1' });
    const again = await client.submit('test.echo', input, { idempotencyKey: 'k-1' });
    expect([again.id, first.isDuplicate, again.isDuplicate]).toEqual([first.id, false, true]);
    expect(await again.result()).toEqual({ text: 'once', steps: 1 });
    const conflict = await rejection(
      client.submit('test.echo', { text: 'other', steps: 1 }, { idempotencyKey: 'k-1' }),
    );
    expect(conflict).toMatchObject({ name: 'SluiceApiError', code: 'CONFLICT' });
  });

  it('a failing handler rejects result() with JOB_FAILED carrying the job error', async () => {
    await using client = disposable(clientOf(stack()));
    const handle = await client.submit('test.trouble', { mode: 'fail' });
    const error = await rejection(handle.result());
    expect(isJobFailedError(error)).toBe(true);
    if (!isJobFailedError(error)) return;
    expect(error.code).toBe('JOB_FAILED');
    expect(error.jobId).toBe(handle.id);
    expect(error.error).toEqual({
      kind: 'non_retriable',
      message: 'the input cannot be processed',
    });
  });

  it('needs_review and dead_lettered reject with their own errors; a requeue gives a handle', async () => {
    await using client = disposable(clientOf(stack()));
    const review = await client.submit('test.trouble', { mode: 'review' });
    const reviewError = await rejection(review.result());
    expect(isJobNeedsReviewError(reviewError)).toBe(true);
    expect(reviewError).toMatchObject({ code: 'JOB_NEEDS_REVIEW', state: 'needs_review' });

    const crash = await client.submit('test.trouble', { mode: 'crash' });
    const dead = await rejection(crash.result());
    expect(isJobDeadLetteredError(dead)).toBe(true);
    expect(dead).toMatchObject({ code: 'JOB_DEAD_LETTERED', reason: 'MAX_ATTEMPTS' });
    expect(dead).toMatchObject({ error: { kind: 'error', message: 'provider exploded' } });
    const listed = await client.deadLetters.list({ kind: 'test.trouble' });
    expect(listed.items.map((j) => j.id)).toContain(crash.id);

    const requeued = await client.deadLetters.requeue(crash.id, 'test.trouble');
    expect(requeued.id).toBe(crash.id);
    // It runs again (and crashes again): result() waits for the new end, not the old event.
    const again = await rejection(requeued.result());
    expect(again).toMatchObject({ code: 'JOB_DEAD_LETTERED' });
    // A watch ends at a terminal event, so the first run's history ends at the first dead
    // letter; watching on after it follows the requeued run to its own end.
    const firstRun = await collect(requeued.watch());
    expect(firstRun.at(-1)).toMatchObject({ type: 'dead_letter' });
    const secondRun = await collect(requeued.watch({ after: firstRun.at(-1)!.seq }));
    expect(secondRun[0]).toMatchObject({ type: 'state', from: 'dead_lettered', to: 'queued' });
    expect(secondRun.at(-1)).toMatchObject({ type: 'dead_letter', reason: 'MAX_ATTEMPTS' });
    const seqs = [...firstRun, ...secondRun].map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('cancel while running: result() rejects with JOB_CANCELLED', async () => {
    await using client = disposable(clientOf(stack()));
    const handle = await client.submit('test.echo', { text: 'long', steps: 40, stepMs: 100 });
    for await (const event of handle.watch()) {
      if (event.type === 'progress') break;
    }
    expect(await handle.cancel()).toEqual({ id: handle.id, state: 'cancelled' });
    const error = await rejection(handle.result());
    expect(isJobCancelledError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'JOB_CANCELLED', state: 'cancelled' });
  });

  it('a handle rebuilt from an id, lists and the tenant feed', async () => {
    await using client = disposable(clientOf(stack()));
    // The feed is live from when iteration starts: read it alongside the job.
    const seen: string[] = [];
    const target = { id: '' };
    const reading = (async () => {
      for await (const item of client.watchAll({ kinds: ['test.echo'] })) {
        expect(item.kind).toBe('test.echo');
        if (item.event.jobId !== target.id) continue;
        seen.push(item.event.type === 'state' ? item.event.to : item.event.type);
        if (seen.includes('succeeded')) return;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const submitted = await client.submit('test.echo', { text: 'feed', steps: 3, stepMs: 100 });
    target.id = submitted.id;
    const rebuilt = client.job(submitted.id);
    expect(rebuilt.kind).toBeUndefined();
    expect(await rebuilt.result()).toEqual({ text: 'feed', steps: 3 });
    expect((await rebuilt.status()).kind).toBe('test.echo');
    expect(rebuilt.kind).toBe('test.echo');
    await reading;
    expect(seen.filter((s) => s === 'progress')).toHaveLength(3);
    const page = await client.jobs.list({ kind: 'test.echo', state: 'succeeded', limit: 100 });
    expect(page.items.map((j) => j.id)).toContain(submitted.id);
    expect((await client.jobs.get(submitted.id)).state).toBe('succeeded');
  });

  it('an aborted result() rejects with the abort reason; close() ends open watches', async () => {
    const client = clientOf(stack());
    const handle = await client.submit('test.echo', { text: 'slow', steps: 30, stepMs: 100 });
    const controller = new AbortController();
    const waiting = rejection(handle.result({ signal: controller.signal }));
    controller.abort(new Error('gave up'));
    expect(await waiting).toMatchObject({ message: 'gave up' });

    const seen: string[] = [];
    const watching = (async () => {
      for await (const event of handle.watch()) seen.push(event.type);
    })();
    while (!seen.includes('progress')) await new Promise((r) => setTimeout(r, 20));
    await client.close();
    await watching;
    expect(seen.at(-1)).not.toBe('state');
    await handle.cancel().catch(() => undefined);
  });

  it('bad input and bad keys are typed API errors, over HTTP and over the socket', async () => {
    await using client = disposable(clientOf(stack()));
    const bad = await rejection(client.submit('test.echo', { text: 'x', steps: 0 }));
    expect(isSluiceApiError(bad)).toBe(true);
    expect(bad).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(isSluiceApiError(bad) && bad.issues?.length).toBeGreaterThan(0);
    const missing = await rejection(client.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa').status());
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });

    await using stranger = disposable(clientOf(stack(), 'sk_wrong'));
    expect(await rejection(stranger.jobs.list())).toMatchObject({ code: 'UNAUTHORIZED' });
    const watched = await rejection(collect(stranger.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa').watch()));
    expect(watched).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('a legal hold: set at submit, lifted by a key with jobs:manage, refused without it', async () => {
    await using client = disposable(clientOf(stack()));
    const handle = await client.submit('test.echo', { text: 'keep', steps: 1 }, { hold: true });
    expect((await client.jobs.get(handle.id)).hold).toBe(true);
    expect(await rejection(client.jobs.hold(handle.id, false))).toMatchObject({
      code: 'FORBIDDEN',
    });
    const { key } = await createApiKey(stack().db.database.db, 'acme', { scopes: ['jobs:manage'] });
    await using manager = disposable(clientOf(stack(), key));
    expect(await manager.jobs.hold(handle.id, false)).toEqual({ id: handle.id, hold: false });
    expect((await client.jobs.get(handle.id)).hold).toBe(false);
  });
});

/** `await using` for a client (closes its socket and ends its watches). */
function disposable<T extends { close(): Promise<void> }>(client: T): T & AsyncDisposable {
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}
