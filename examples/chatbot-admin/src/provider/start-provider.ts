// Starts the fake AI provider as its own OS process (its ledger outlives anything the worker
// does) and hands back its URL, its ledger and its fault knobs. Its ledger and intent jobs live in
// `dataDir`, so a provider started again over the same folder (the app restarted) bills nothing
// twice and can still be polled for the jobs it accepted; it ends when this process ends, however
// this process ends.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaultRule } from './faults.js';
import { readLedger, type BillRecord } from './ledger.js';

export interface StartedProvider {
  readonly url: string;
  readonly pid: number;
  readonly ledgerPath: string;
  ledger(): BillRecord[];
  setFaults(rules: readonly Partial<FaultRule>[]): Promise<void>;
  stop(): Promise<void>;
}

const here = fileURLToPath(new URL('.', import.meta.url));

export async function startProvider(opts: {
  dataDir: string;
  port?: number;
}): Promise<StartedProvider> {
  const ledgerPath = join(opts.dataDir, 'ai-ledger.jsonl');
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'main.ts')], {
    env: {
      ...process.env,
      PORT: String(opts.port ?? 0),
      AI_LEDGER: ledgerPath,
      AI_DATA_DIR: join(opts.dataDir, 'intent-jobs'),
      AI_EXIT_WITH_PARENT: '1',
    },
    cwd: here,
    // stdin: a pipe this process never writes; its end (this process's) ends the provider.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('AI provider not ready in 30 s')), 30_000);
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /AI_PROVIDER_READY port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`AI provider exited before ready (${code})`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    ledgerPath,
    ledger: () => readLedger(ledgerPath),
    async setFaults(rules) {
      const res = await fetch(`${url}/admin/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rules),
      });
      if (!res.ok) throw new Error(`setFaults: HTTP ${res.status} ${await res.text()}`);
    },
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
