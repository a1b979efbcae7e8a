// The fake provider runs as its own OS process so billing evidence outlives a SIGKILL. This suite
// catches a ledger that only lived in memory (records gone after a kill -9) and idempotency or
// async state that a restart would forget.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { callProvider, pollJob, socketErrorCode } from './call-provider.case.js';
import { readLedgerFile } from './ledger.js';
import { startFakeProvider } from './start-fake-provider.js';

const dir = mkdtempSync(join(tmpdir(), 'fake-provider-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startFakeProvider (separate process)', () => {
  it('prints exactly one ready line and exits cleanly on SIGTERM', async () => {
    const main = fileURLToPath(new URL('./main.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@sluice/source', main],
      {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { ...process.env, PORT: '0', FAKE_PROVIDER_LEDGER: join(dir, 'ready.jsonl') },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    await expect.poll(() => stdout, { timeout: 20_000, interval: 50 }).toMatch(/\n$/);
    expect(stdout).toMatch(/^FAKE_PROVIDER_READY port=\d+\n$/);
    const exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(stdout.split('\n')).toHaveLength(2);
  });

  it('commit-then-drop across processes: the caller sees a socket error, the ledger 1 bill', async () => {
    await using provider = await startFakeProvider();
    await provider.setFaults([{ endpoint: 'sync', unitKey: 'u', fault: 'commit-then-drop' }]);
    const error = await callProvider(provider.url, 'sync', { jobId: 'j', unitKey: 'u' }).catch(
      (e: unknown) => e,
    );
    expect(socketErrorCode(error)).toBe('UND_ERR_SOCKET');
    expect(await provider.summary()).toMatchObject([
      { jobId: 'j', unitKey: 'u', billed: 1, requests: 1 },
    ]);
  });

  it('the ledger, idempotency memory and async jobs survive a SIGKILL of the provider', async () => {
    const ledgerPath = join(dir, 'survive.jsonl');
    const first = await startFakeProvider({ ledgerPath, asyncDelayMs: 0 });
    await callProvider(first.url, 'sync', { unitKey: 'sync' });
    const safe = (await (
      await callProvider(first.url, 'safe', { unitKey: 'safe', idempotencyKey: 'k' })
    ).json()) as { callId: string };
    const { externalJobId } = (await (
      await callProvider(first.url, 'async', { unitKey: 'async' })
    ).json()) as { externalJobId: string };
    expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    // Evidence readable without any provider process.
    expect(readLedgerFile(ledgerPath).map((r) => [r.seq, r.unitKey, r.billed])).toEqual([
      [1, 'sync', true],
      [2, 'safe', true],
      [3, 'async', true],
    ]);

    await using second = await startFakeProvider({ ledgerPath });
    expect(second.pid).not.toBe(first.pid);
    expect(await second.ledger()).toEqual(readLedgerFile(ledgerPath));
    const replay = (await (
      await callProvider(second.url, 'safe', { unitKey: 'safe', idempotencyKey: 'k' })
    ).json()) as Record<string, unknown>;
    expect(replay).toMatchObject({ callId: safe.callId, deduplicated: true });
    const poll = (await (await pollJob(second.url, externalJobId)).json()) as { status: string };
    expect(poll.status).toBe('succeeded');
    expect((await second.ledger()).at(-1)?.seq).toBe(4);
    expect(await second.billedCount()).toBe(3);
  });

  it('a bill the caller never saw survives a SIGKILL of the caller', async () => {
    await using provider = await startFakeProvider();
    // The caller is a separate process killed mid-call, like a worker hit by kill -9. It says
    // `sent` once the request is flushed to the socket; the provider commits 1 s later.
    const script = `import { request } from 'node:http';
      const req = request(${JSON.stringify(`${provider.url}/v1/sync/generate`)}, { method: 'POST', headers: {
        'x-job-id': 'j', 'x-unit-key': 'u', 'x-fault': 'slow', 'x-fault-delay-ms': '1000' } });
      req.on('error', () => {});
      req.end('{}', () => process.stdout.write('sent\\n'));`;
    const caller = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const died = new Promise((resolve) => caller.once('exit', (_code, signal) => resolve(signal)));
    caller.stdout.once('data', () => caller.kill('SIGKILL'));
    expect(await died).toBe('SIGKILL');
    expect(await provider.billedCount()).toBe(0);
    await expect
      .poll(() => provider.billedCount({ jobId: 'j', unitKey: 'u' }), {
        timeout: 5000,
        interval: 50,
      })
      .toBe(1);
  });
});
