// Starts a provider as its own OS process (its ledger outlives anything the worker does) and
// hands back its URL, its ledger and a way to set faults, kill and restart it on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaultRule } from './faults.js';
import { readLedger, type BillRecord } from './ledger.js';

export type ProviderKind = 'speech' | 'video';

export interface StartedProvider {
  readonly kind: ProviderKind;
  readonly url: string;
  readonly ledgerPath: string;
  ledger(): BillRecord[];
  setFaults(rules: readonly Partial<FaultRule>[]): Promise<void>;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
  /** Resolves when the running process exits (a crash fault, say). */
  exited(): Promise<void>;
  /** Starts it again on the same port, data and ledger (after a crash). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartProviderOptions {
  dataDir: string;
  port?: number;
  faults?: readonly Partial<FaultRule>[];
  /** Lines of the provider's stderr go here (default: this process's stderr). */
  log?: (line: string) => void;
}

const entry = join(fileURLToPath(new URL('.', import.meta.url)), 'provider-main.ts');

function launch(kind: ProviderKind, opts: StartProviderOptions, port: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@sluice/source', entry, kind],
    {
      env: {
        ...process.env,
        PORT: String(port),
        PROVIDER_DATA_DIR: join(opts.dataDir, kind),
        PROVIDER_LEDGER: join(opts.dataDir, `${kind}-ledger.jsonl`),
        PROVIDER_FAULTS: JSON.stringify(opts.faults ?? []),
      },
      // `--import tsx` resolves from the working directory: this package's.
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const log = opts.log ?? ((l: string) => process.stderr.write(`[${kind}] ${l}\n`));
  child.stderr.setEncoding('utf8').on('data', (s: string) => s.trimEnd() && log(s.trimEnd()));
  const ready = new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${kind} provider not ready in 30 s`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /PROVIDER_READY \w+ port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${kind} provider exited before ready (${code ?? signal})`));
    });
  });
  return { child, ready };
}

const gone = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => child.once('exit', () => r()));

export async function startProvider(
  kind: ProviderKind,
  opts: StartProviderOptions,
): Promise<StartedProvider> {
  let current = launch(kind, opts, opts.port ?? 0);
  const port = await current.ready;
  const url = `http://127.0.0.1:${port}`;
  const ledgerPath = join(opts.dataDir, `${kind}-ledger.jsonl`);
  return {
    kind,
    url,
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
    async kill() {
      current.child.kill('SIGKILL');
      await gone(current.child);
    },
    exited: () => gone(current.child),
    async restart() {
      current = launch(kind, { ...opts, faults: [] }, port);
      await current.ready;
    },
    async stop() {
      current.child.kill('SIGTERM');
      await gone(current.child);
    },
  };
}
