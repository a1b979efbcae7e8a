// Each fault must really behave as the retry-safety suites assume, on a real loopback socket:
// if the fake lied (e.g. a "dropped" call that did not bill), those suites would prove nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callProvider, pollJob, sleep, socketErrorCode } from './call-provider.case.js';
import { createFakeProviderServer, type FakeProviderServer } from './server.js';

let dir: string;
let provider: FakeProviderServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fake-provider-test-'));
  provider = await createFakeProviderServer({
    ledgerPath: join(dir, 'ledger.jsonl'),
    // Long enough that the first poll finds the job running even on a loaded machine (at 50 ms
    // a full run's load let the job end before it: `polls` 1).
    asyncDelayMs: 400,
  });
});
afterEach(async () => provider.reset());
afterAll(async () => {
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sync endpoint and per-request faults', () => {
  it('bills once and answers the result', async () => {
    const res = await callProvider(provider.url, 'sync', {
      jobId: 'j',
      unitKey: 'u',
      attemptId: 'a1',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { output: string }; callId: string };
    expect(body.result.output).toContain('generated:j:u:');
    const [record] = await provider.ledger();
    expect(record).toMatchObject({
      seq: 1,
      endpoint: 'sync',
      jobId: 'j',
      unitKey: 'u',
      attemptId: 'a1',
      billed: true,
      callId: body.callId,
      requestId: null,
    });
  });

  it('error-before-processing: 503 and no bill', async () => {
    const res = await callProvider(provider.url, 'sync', { fault: 'error-before-processing' });
    expect(res.status).toBe(503);
    expect(await provider.billedCount()).toBe(0);
    expect((await provider.ledger())[0]).toMatchObject({ billed: false, outcome: 'rejected-503' });
  });

  it('commit-then-drop: the fetch fails with a socket error and the call is billed', async () => {
    const error: unknown = await callProvider(provider.url, 'sync', {
      jobId: 'j',
      unitKey: 'u',
      fault: 'commit-then-drop',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(socketErrorCode(error)).toBe('UND_ERR_SOCKET');
    expect(await provider.billedCount({ jobId: 'j', unitKey: 'u' })).toBe(1);
    expect((await provider.ledger())[0]?.outcome).toBe('dropped');
  });

  it('http-4xx: 422 and no bill; http-5xx: 500 after billing', async () => {
    expect(
      (await callProvider(provider.url, 'sync', { unitKey: 'a', fault: 'http-4xx' })).status,
    ).toBe(422);
    expect(
      (await callProvider(provider.url, 'sync', { unitKey: 'b', fault: 'http-5xx' })).status,
    ).toBe(500);
    expect(await provider.billedCount({ unitKey: 'a' })).toBe(0);
    expect(await provider.billedCount({ unitKey: 'b' })).toBe(1);
  });

  it('slow: answers after the delay; a caller that gives up is still billed (ambiguous timeout)', async () => {
    const started = Date.now();
    expect(
      (await callProvider(provider.url, 'sync', { unitKey: 'a', fault: 'slow', faultDelayMs: 300 }))
        .status,
    ).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    const gaveUp = callProvider(provider.url, 'sync', {
      unitKey: 'b',
      fault: 'slow',
      faultDelayMs: 600,
      signal: AbortSignal.timeout(80),
    });
    await expect(gaveUp).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(await provider.billedCount({ unitKey: 'b' })).toBe(0);
    await expect
      .poll(() => provider.billedCount({ unitKey: 'b' }), { timeout: 5000, interval: 50 })
      .toBe(1);
  });

  it('hang: never answers and never bills', async () => {
    const hung = callProvider(provider.url, 'sync', {
      fault: 'hang',
      signal: AbortSignal.timeout(200),
    });
    await expect(hung).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(await provider.billedCount()).toBe(0);
    expect((await provider.ledger())[0]).toMatchObject({ billed: false, outcome: 'hung' });
  });

  it('refuses bad input without recording or billing', async () => {
    expect((await callProvider(provider.url, 'sync', { fault: 'nonsense' })).status).toBe(400);
    expect((await callProvider(provider.url, 'sync', { fault: 'async-fail' })).status).toBe(400);
    expect((await callProvider(provider.url, 'sync', { jobId: '' })).status).toBe(400);
    expect(await provider.ledger()).toEqual([]);
  });
});

describe('safe endpoint', () => {
  it('deduplicates by idempotency key: 1 billed, 1 dedup hit, the first result replayed', async () => {
    const first = (await (
      await callProvider(provider.url, 'safe', { idempotencyKey: 'k1' })
    ).json()) as Record<string, unknown>;
    const second = (await (
      await callProvider(provider.url, 'safe', { idempotencyKey: 'k1' })
    ).json()) as Record<string, unknown>;
    expect(first.deduplicated).toBe(false);
    expect(second).toEqual({ ...first, deduplicated: true });
    expect(await provider.summary()).toEqual([
      {
        jobId: 'job-1',
        unitKey: 'unit-1',
        billed: 1,
        requests: 2,
        externalJobIds: [],
        dedupHits: 1,
      },
    ]);
  });

  it('requires the key (400, unbilled)', async () => {
    expect((await callProvider(provider.url, 'safe')).status).toBe(400);
    expect(await provider.billedCount()).toBe(0);
  });

  it('a retry after commit-then-drop bills nothing more', async () => {
    await expect(
      callProvider(provider.url, 'safe', { idempotencyKey: 'k2', fault: 'commit-then-drop' }),
    ).rejects.toThrow();
    const retry = (await (
      await callProvider(provider.url, 'safe', { idempotencyKey: 'k2' })
    ).json()) as Record<string, unknown>;
    expect(retry.deduplicated).toBe(true);
    expect(await provider.billedCount()).toBe(1);
  });
});

describe('async endpoint', () => {
  async function pollUntilDone(
    externalJobId: string,
  ): Promise<{ status: string; polls: number; result?: unknown }> {
    for (let polls = 1; polls <= 300; polls += 1) {
      const body = (await (await pollJob(provider.url, externalJobId)).json()) as {
        status: string;
        result?: unknown;
      };
      if (body.status !== 'running') return { ...body, polls };
      await sleep(10);
    }
    throw new Error('async job never finished');
  }

  it('bills the submit once; polls bill nothing', async () => {
    const { externalJobId } = (await (await callProvider(provider.url, 'async')).json()) as {
      externalJobId: string;
    };
    const done = await pollUntilDone(externalJobId);
    expect(done.status).toBe('succeeded');
    expect(done.polls).toBeGreaterThan(1);
    for (let i = 0; i < 3; i += 1)
      expect((await pollJob(provider.url, externalJobId)).status).toBe(200);
    expect(await provider.billedCount()).toBe(1);
    expect(await provider.ledger()).toHaveLength(1);
    expect((await provider.summary())[0]?.externalJobIds).toEqual([externalJobId]);
  });

  it('async-fail: accepted and billed, then the job ends failed', async () => {
    const { externalJobId } = (await (
      await callProvider(provider.url, 'async', { fault: 'async-fail' })
    ).json()) as { externalJobId: string };
    expect((await pollUntilDone(externalJobId)).status).toBe('failed');
    expect(await provider.billedCount()).toBe(1);
  });

  it('unknown external ids answer 404; poll faults apply without billing', async () => {
    expect((await pollJob(provider.url, 'ext_missing')).status).toBe(404);
    const { externalJobId } = (await (await callProvider(provider.url, 'async')).json()) as {
      externalJobId: string;
    };
    expect((await pollJob(provider.url, externalJobId, { 'x-fault': 'http-5xx' })).status).toBe(
      500,
    );
    expect(await provider.billedCount()).toBe(1);
  });
});

describe('admin fault rules', () => {
  it('first matching rule wins, times decrements, then normal service resumes', async () => {
    await provider.setFaults([
      { endpoint: 'sync', unitKey: 'u1', fault: 'http-5xx', times: 2 },
      { fault: 'async-fail' }, // never matches a sync call
      { endpoint: 'sync', fault: 'http-4xx' },
    ]);
    const statuses = [];
    for (const unitKey of ['u1', 'u1', 'u1', 'u2']) {
      statuses.push((await callProvider(provider.url, 'sync', { unitKey })).status);
    }
    expect(statuses).toEqual([500, 500, 422, 200]);
    expect(await provider.faults()).toEqual([{ fault: 'async-fail', times: 1 }]);
    await provider.clearFaults();
    expect(await provider.faults()).toEqual([]);
  });

  it('rejects an invalid rule list and keeps the armed rules', async () => {
    await provider.setFaults([{ fault: 'hang', jobId: 'x' }]);
    await expect(provider.setFaults([{ fault: 'oops' } as never])).rejects.toMatchObject({
      status: 400,
    });
    expect(await provider.faults()).toEqual([{ fault: 'hang', jobId: 'x', times: 1 }]);
  });

  it('reset clears the ledger, the idempotency memory and the rules', async () => {
    await provider.setFaults([{ fault: 'hang', jobId: 'x' }]);
    await callProvider(provider.url, 'safe', { idempotencyKey: 'k' });
    await provider.reset();
    expect(await provider.ledger()).toEqual([]);
    expect(await provider.faults()).toEqual([]);
    const again = (await (
      await callProvider(provider.url, 'safe', { idempotencyKey: 'k' })
    ).json()) as Record<string, unknown>;
    expect(again.deduplicated).toBe(false);
    expect((await provider.ledger())[0]?.seq).toBe(1);
  });
});
