// `sluice jobs | dead-letters | review` against a real gateway and worker (`runServe('dev')` on a
// SQLite file, real HTTP and WebSocket): what an operator sees and the exit codes scripts read.

import { waitFor } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { main } from '../src/main.js';
import { captureIo } from './capture-io.js';
import { sluiceAgainst, useOpsServer } from './ops-server.js';

const KEY = 'dev_operator_test_key';
const ops = useOpsServer(KEY, { SLUICE_LEASE_MS: '2000' });

function sluice(args: string[], isTTY = false) {
  return sluiceAgainst(ops, KEY, args, isTTY);
}

describe('sluice jobs', () => {
  it('list, get and watch show a job until it succeeds; watch exits 0', async () => {
    const job = await ops.client.submit('ops.steps', { units: 3, unitMs: 20 });
    const watched = await sluice(['jobs', 'watch', job.id]);
    expect(watched.err).toEqual([]);
    expect(watched.code).toBe(EXIT_CODES.ok);
    // Plain lines off a terminal: one per event, the last one the final state.
    expect(watched.out.filter((l) => l.includes('\tprogress\t'))).toHaveLength(3);
    expect(watched.out.at(-1)).toMatch(/\tstate\tsucceeded$/);

    const got = await sluice(['jobs', 'get', job.id]);
    expect(got.out).toEqual([
      expect.stringMatching(new RegExp(`^${job.id}\tops.steps@v1\tsucceeded\t`)),
    ]);
    const listed = await sluice(['jobs', 'list', '--state', 'succeeded', '--json']);
    expect(JSON.parse(listed.out[0] as string).items.map((j: { id: string }) => j.id)).toContain(
      job.id,
    );
  });

  it('watch draws one progress bar line on a terminal', async () => {
    const job = await ops.client.submit('ops.steps', { units: 2, unitMs: 20 });
    const watched = await sluice(['jobs', 'watch', job.id], true);
    expect(watched.code).toBe(EXIT_CODES.ok);
    // Redrawn in place with \r; the final frame is full and ends the line.
    const frames = watched.text.split('\r\x1b[2K').filter(Boolean);
    expect(frames.at(-1)).toMatch(/^\[#{30}\] 100% {2}succeeded {2}\(\d+ units? done\)\n$/);
    expect(watched.text.split('\n')).toHaveLength(2);
  });

  it('cancel moves a queued job to cancelled', async () => {
    const job = await ops.client.submit('ops.steps', { units: 10, unitMs: 5_000 });
    const cancelled = await sluice(['jobs', 'cancel', job.id]);
    expect(cancelled).toMatchObject({ code: EXIT_CODES.ok, out: [`${job.id}\tcancelled`] });
  });

  it('a job the gateway does not know is refused with exit 5, in one line', async () => {
    const r = await sluice(['jobs', 'get', 'v1-unknown0000000000000']);
    expect(r.code).toBe(EXIT_CODES.refused);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^sluice: (NOT_FOUND|BAD_REQUEST): /);
  });

  it('no API key is a usage error', async () => {
    const io = captureIo({ env: { SLUICE_URL: ops.url } });
    expect(await main(['jobs', 'list'], io)).toBe(EXIT_CODES.usage);
    expect(io.stderr).toEqual([
      'sluice: an API key is needed: pass --api-key or set SLUICE_API_KEY',
    ]);
  });
});

describe('sluice jobs list filters and jobs show', () => {
  it('list --tag --meta finds the tagged job; show prints its attempts, units and events', async () => {
    const job = await ops.client.submit(
      'ops.steps',
      { units: 2, unitMs: 1 },
      { tags: ['cli-search', 'eu'], metadata: { customer: 'c-42', plan: 5 } },
    );
    await ops.client.submit('ops.steps', { units: 1, unitMs: 1 }, { tags: ['eu'] });
    await job.result();
    const listed = await sluice(['jobs', 'list', '--tag', 'eu', '--meta', 'customer=c-42']);
    expect(listed.code).toBe(EXIT_CODES.ok);
    expect(listed.out).toEqual([
      expect.stringMatching(new RegExp(`^${job.id}\tops.steps@v1\tsucceeded\t`)),
    ]);
    const byPlan = await sluice([
      'jobs',
      'list',
      '--meta',
      'plan=5',
      '--state',
      'succeeded',
      '--json',
    ]);
    expect(JSON.parse(byPlan.out[0] as string).items).toEqual([
      expect.objectContaining({ id: job.id, tags: ['cli-search', 'eu'] }),
    ]);
    const bad = await sluice(['jobs', 'list', '--state', 'done']);
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.err[0]).toContain('--state');

    const shown = await sluice(['jobs', 'show', job.id]);
    expect(shown.code).toBe(EXIT_CODES.ok);
    expect(shown.out).toContain('tags\tcli-search, eu');
    expect(shown.out).toContain('attempts (1)');
    expect(shown.out.find((l) => l.startsWith('  #1\t'))).toMatch(/\tworker \S+\t.*succeeded$/);
    // A job that ends for good keeps no checkpoints (only a later attempt would read them).
    expect(shown.out).toContain('provider calls (0, 0 may have billed)');
    expect(shown.out.filter((l) => /^ {2}\d+\t.*→ (running|succeeded)$/.test(l))).toHaveLength(2);
    const detail = JSON.parse((await sluice(['jobs', 'show', job.id, '--json'])).out[0] as string);
    expect(detail.attempts[0]).toMatchObject({ attempt: 1, epoch: 1, outcome: 'succeeded' });
  });
});

describe('sluice jobs requeue and rerun', () => {
  it('requeue brings a failed job back (it parks again); rerun runs a succeeded one again', async () => {
    const parked = await ops.client.submit('ops.park', {});
    await waitFor(async () => (await ops.client.jobs.get(parked.id)).state === 'needs_review', {
      timeoutMs: 15_000,
    });
    await ops.client.review.discard(parked.id, 'not now');
    const requeued = await sluice(['jobs', 'requeue', parked.id, '--note', 'try again']);
    expect(requeued).toMatchObject({ code: EXIT_CODES.ok, out: [`${parked.id}\tqueued`] });
    await waitFor(async () => (await ops.client.jobs.get(parked.id)).state === 'needs_review', {
      timeoutMs: 15_000,
    });

    const done = await ops.client.submit('ops.steps', { units: 1, unitMs: 1 });
    await done.result();
    const rerun = await sluice(['jobs', 'rerun', done.id, '--json']);
    expect(rerun.code).toBe(EXIT_CODES.ok);
    expect(JSON.parse(rerun.out[0] as string)).toMatchObject({ id: done.id, state: 'queued' });
    await waitFor(async () => (await ops.client.jobs.detail(done.id)).attempts.length === 2, {
      timeoutMs: 15_000,
    });
    const running = await ops.client.submit('ops.steps', { units: 10, unitMs: 5_000 });
    const refused = await sluice(['jobs', 'requeue', running.id]);
    expect(refused.code).toBe(EXIT_CODES.refused);
    expect(refused.err).toEqual([expect.stringMatching(/^sluice: CONFLICT: cannot requeue/)]);
    await ops.client.job(running.id).cancel();
  });
});

describe('sluice bulk', () => {
  it('a dry run counts, a run requeues every dead-lettered job of a tag and waits for the end', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const job = await ops.client.submit('ops.exhaust', {}, { tags: ['cli-bulk'] });
      ids.push(job.id);
    }
    for (const id of ids)
      await waitFor(async () => (await ops.client.jobs.get(id)).state === 'dead_lettered', {
        timeoutMs: 15_000,
      });
    const dry = await sluice([
      'bulk',
      'run',
      '--action',
      'requeue',
      '--tag',
      'cli-bulk',
      '--dry-run',
    ]);
    expect(dry).toMatchObject({ code: EXIT_CODES.ok, out: ['3 job(s) would be requeued'] });
    const noKey = await sluice(['bulk', 'run', '--action', 'requeue', '--tag', 'cli-bulk']);
    expect(noKey.code).toBe(EXIT_CODES.usage);
    const run = await sluice([
      'bulk',
      'run',
      '--action',
      'requeue',
      '--tag',
      'cli-bulk',
      '--key',
      'k1',
      '--wait',
    ]);
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.out.at(-1)).toMatch(/\trequeue\tsucceeded\t3\/3 processed\t3 applied\t/);
    const listed = await sluice(['bulk', 'list']);
    expect(listed.out[0]).toMatch(/\trequeue\tsucceeded\t/);
  });
});

describe('sluice audit', () => {
  it('lists the operator actions with who and why, and exports them as JSON lines', async () => {
    const done = await ops.client.submit('ops.steps', { units: 1, unitMs: 1 });
    await done.result();
    await sluice(['jobs', 'rerun', done.id, '--note', 'audit me']);
    const listed = await sluice(['audit', '--action', 'job.rerun']);
    expect(listed.code).toBe(EXIT_CODES.ok);
    expect(listed.out[0]).toMatch(new RegExp(`\tjob.rerun\t${done.id}\t\\S+\taudit me$`));
    const exported = await sluice(['audit', 'export', '--target', done.id]);
    expect(exported.code).toBe(EXIT_CODES.ok);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ action: 'job.rerun', target: done.id, note: 'audit me' }),
    ]);
    const bad = await sluice(['audit', '--action', 'nope']);
    expect(bad.code).toBe(EXIT_CODES.usage);
  });
});

describe('sluice dead-letters and review', () => {
  it('dead-letters lists a job whose attempts are spent, and retry requeues it', async () => {
    const job = await ops.client.submit('ops.exhaust', {});
    await waitFor(async () => (await ops.client.jobs.get(job.id)).state === 'dead_lettered', {
      timeoutMs: 15_000,
    });
    const listed = await sluice(['dead-letters']);
    expect(listed.out.some((l) => l.startsWith(`${job.id}\tops.exhaust@v1\tdead_lettered\t`))).toBe(
      true,
    );
    const retried = await sluice(['dead-letters', 'retry', job.id]);
    expect(retried).toMatchObject({ code: EXIT_CODES.ok, out: [`${job.id}\tqueued`] });
  });

  it('review lists a parked job; discard needs a note and fails it for good', async () => {
    const job = await ops.client.submit('ops.park', {});
    await waitFor(async () => (await ops.client.jobs.get(job.id)).state === 'needs_review', {
      timeoutMs: 15_000,
    });
    const listed = await sluice(['review', 'list']);
    expect(listed.out.some((l) => l.startsWith(`${job.id}\tops.park@v1\tneeds_review\t`))).toBe(
      true,
    );

    const noNote = await sluice(['review', 'discard', job.id]);
    expect(noNote.code).toBe(EXIT_CODES.usage);
    expect(noNote.err).toEqual([
      expect.stringMatching(/^sluice: required option '--note <text>' not specified/),
    ]);

    const discarded = await sluice(['review', 'discard', job.id, '--note', 'checked by hand']);
    expect(discarded).toMatchObject({ code: EXIT_CODES.ok, out: [`${job.id}\tfailed`] });
    // Deciding twice: the gateway refuses (conflict), exit 5.
    const again = await sluice(['review', 'approve', job.id, '--note', 'x']);
    expect(again.code).toBe(EXIT_CODES.refused);
    expect(again.err).toEqual([expect.stringMatching(/^sluice: CONFLICT: /)]);
  });
});
