// Spawns the fake provider as its own OS process (main.ts) and hands back a typed handle.
// The process is a child of the test; only this handle (or the test's exit) ever kills it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeProviderClient, type FakeProviderClient } from './fake-provider-client.js';
import { readLedgerFile } from './ledger.js';
import type { LedgerRecord } from './types.js';

export interface StartFakeProviderOptions {
  /** Reuse a ledger file (e.g. to restart after a SIGKILL). Default: a fresh temp file. */
  ledgerPath?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  asyncDelayMs?: number;
  /** Default 20 s: tsx start-up on a busy 2-core machine is slow. */
  readyTimeoutMs?: number;
}

export interface FakeProviderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface FakeProvider extends FakeProviderClient {
  readonly pid: number;
  readonly ledgerPath: string;
  /** Sends `signal` (default SIGTERM) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<FakeProviderExit>;
  /** Reads the ledger file directly: works after the provider was killed. */
  readLedgerFile(): LedgerRecord[];
  /** Kills the process (SIGKILL) and removes the temp ledger it created, if any. */
  [Symbol.asyncDispose](): Promise<void>;
}

const READY_LINE = /^FAKE_PROVIDER_READY port=(\d+)$/m;

function mainCommand(): string[] {
  const here = fileURLToPath(import.meta.url);
  // From sources (tests, tsx) run main.ts through tsx; from a build run main.js with plain node.
  if (here.endsWith('.ts')) {
    return ['--import', 'tsx', '--conditions=@sluice/source', join(dirname(here), 'main.ts')];
  }
  return [join(dirname(here), 'main.js')];
}

function waitForExit(child: ChildProcess): Promise<FakeProviderExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export async function startFakeProvider(
  options: StartFakeProviderOptions = {},
): Promise<FakeProvider> {
  const ownDir = options.ledgerPath ? undefined : mkdtempSync(join(tmpdir(), 'fake-provider-'));
  const ledgerPath = options.ledgerPath ?? join(ownDir as string, 'ledger.jsonl');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(options.port ?? 0),
    FAKE_PROVIDER_LEDGER: ledgerPath,
  };
  if (options.asyncDelayMs !== undefined)
    env.FAKE_PROVIDER_ASYNC_DELAY_MS = String(options.asyncDelayMs);

  const child = spawn(process.execPath, mainCommand(), {
    cwd: dirname(fileURLToPath(import.meta.url)),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never leave an orphan provider behind a crashed or finished test run.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const exited = waitForExit(child).then((exit) => {
    process.off('exit', killOnExit);
    return exit;
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `fake provider not ready after ${options.readyTimeoutMs ?? 20_000} ms; stderr: ${stderr}`,
            ),
          ),
        options.readyTimeoutMs ?? 20_000,
      );
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = READY_LINE.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(
          new Error(
            `fake provider exited before ready (code ${code}, signal ${signal}); stderr: ${stderr}`,
          ),
        );
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    throw error;
  }

  const kill = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<FakeProviderExit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    ...createFakeProviderClient(`http://127.0.0.1:${port}`),
    pid: child.pid as number,
    ledgerPath,
    kill,
    readLedgerFile: () => readLedgerFile(ledgerPath),
    async [Symbol.asyncDispose]() {
      await kill('SIGKILL');
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}
