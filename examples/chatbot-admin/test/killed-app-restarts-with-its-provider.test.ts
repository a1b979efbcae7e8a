// Catches an all-in-one app whose SIGKILL fails a document for good and leaves a process behind:
// the app started a fresh fake AI provider on every start, on a new port and with an empty memory
// of the intent jobs it had accepted, so after a restart the worker's poll of a job recorded in
// its ledger answered 404 and the document failed; and the killed app's provider kept running,
// orphaned. Now the provider keeps its intent jobs in the app's data folder and ends with the app
// (it watches the pipe the app holds), so: SIGKILL mid-job → the provider is gone too → restart
// over the same folder → the document succeeds, every call billed once.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSluiceClient } from '@sluice/client';
import { callsForJob, openDatabase } from '@sluice/storage';
import { spawnNode, waitFor, type ChildHandle } from '@sluice/testkit';
import { WebSocket } from 'ws';
import { afterAll, expect, it } from 'vitest';
import type { Jobs } from '../src/jobs.js';
import { billsOf, readLedger } from '../src/provider/ledger.js';
import { makePdf } from './documents.js';
import { exampleDir } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-chatbot-killed-app-'));
const apps: ChildHandle[] = [];
const providerPids: number[] = [];
const ledger = () => readLedger(join(dir, 'provider', 'ai-ledger.jsonl'));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm run example:chatbot` over `dir`, as one Node process: its URL, acme's key, its provider. */
async function startApp() {
  const app = await spawnNode(new URL('../src/server/main.ts', import.meta.url), {
    cwd: exampleDir,
    args: ['--port', '0'],
    env: { SLUICE_HOME: dir },
    readyLine: /Ctrl-C stops/,
    readyTimeoutMs: 120_000,
  });
  apps.push(app);
  const out = app.output();
  const url = /Chatbot admin: (http:\/\/\S+)/.exec(out)?.[1];
  const key = /^\s+acme\s+(\S+)$/m.exec(out)?.[1];
  const providerPid = Number(/fake AI provider \S+ \(pid (\d+),/.exec(out)?.[1]);
  if (!url || !key || !providerPid) throw new Error(`unexpected banner:\n${out}`);
  providerPids.push(providerPid);
  return { app, url, key, providerPid };
}

afterAll(async () => {
  // A provider left behind (what this test catches) would also hold the app's stderr open.
  for (const pid of providerPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const app of apps) await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

it(
  'an app SIGKILLed mid-job takes its provider with it; restarted, the document succeeds with every call billed once',
  { timeout: 240_000 },
  async () => {
    const first = await startApp();
    const client = createSluiceClient<Jobs>({ url: first.url, apiKey: first.key, WebSocket });
    // Page 2's intent job runs 8 s at the provider: the kill lands while it is accepted, not done.
    const armed = await fetch(`${first.url}/api/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ fault: 'slow', call: 'intents', unitKey: 'page-02', delayMs: 8000 }]),
    });
    expect(armed.status).toBe(200);
    const file = await client.upload(await makePdf(), { filename: 'killed-app.pdf' });
    const job = await client.submit(
      'document.analyze',
      { fileId: file.id, filename: 'killed-app.pdf' },
      { fileIds: [file.id] },
    );
    await client.close();

    // The worker recorded page 2's intent job id (so a retry polls it, never submits again).
    const database = openDatabase({ url: join(dir, 'sluice.db') });
    try {
      await waitFor(
        async () =>
          (await callsForJob(database.db, job.id)).some(
            (c) => c.unitKey === 'page-02' && c.callName === 'intents' && c.externalId,
          ),
        { timeoutMs: 60_000, message: "page 2's intent job id recorded" },
      );
    } finally {
      await database.close();
    }
    // The pid a user sees is the app's Node process itself (no wrapper in between).
    first.app.signal('SIGKILL');
    await waitFor(() => !alive(first.app.pid), { timeoutMs: 10_000, message: 'the app died' });
    const atKill = billsOf(ledger(), job.id);
    expect(atKill).toEqual({
      'classify:page-01': 1,
      'intents:page-01': 1,
      'classify:page-02': 1,
      'intents:page-02': 1,
    });
    // No orphan: the provider ends with the app that started it.
    await waitFor(() => !alive(first.providerPid), {
      timeoutMs: 10_000,
      message: `the killed app's provider (pid ${first.providerPid}) exited`,
    });

    const second = await startApp();
    const again = createSluiceClient<Jobs>({ url: second.url, apiKey: second.key, WebSocket });
    try {
      // The restarted worker takes the job over (after the dead one's lease) and polls page 2's
      // intent job at the new provider process, which remembers it.
      const output = await again.job(job.id, 'document.analyze').result();
      expect(output.units.map((u) => u.key)).toEqual(['page-01', 'page-02']);
      expect(output.intents.map((i) => i.name)).toContain('pricing.team');
    } finally {
      await again.close();
    }
    expect(billsOf(ledger(), job.id)).toEqual(atKill);

    // Stopped the ordinary way, the app stops its provider too.
    await second.app.stop(30_000);
    await waitFor(() => !alive(second.providerPid), {
      timeoutMs: 10_000,
      message: "the stopped app's provider exited",
    });
  },
);
