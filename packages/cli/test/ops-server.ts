// A real gateway and worker for the operator tests (`runServe('dev')` on a fresh SQLite file,
// real HTTP and WebSocket) serving the `ops.*` jobs, a typed client on it and `sluice(args)` run
// in-process against it. Registers the file's hooks; the returned object is filled in before the
// first test runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { freePort } from '@sluice/testkit';
import WebSocket from 'ws';
import { afterAll, beforeAll } from 'vitest';
import { runServe, type Served } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import { main } from '../src/main.js';
import { captureIo } from './capture-io.js';
import config from './fixtures/ops.config.js';
import type { jobs } from './fixtures/ops-jobs.js';

export interface OpsServer {
  served: Served;
  url: string;
  client: SluiceClient<typeof jobs>;
}

/** `key` is the server's API key; `env` adds settings (e.g. a short lease). */
export function useOpsServer(key: string, env: Record<string, string> = {}): OpsServer {
  const s = {} as OpsServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-ops-'));
    const port = await freePort();
    const settings = resolveSettings(config, {
      DATABASE_URL: join(dir, 'sluice.db'),
      SLUICE_BLOBS_DIR: join(dir, 'blobs'),
      PORT: String(port),
      SLUICE_API_KEY: key,
      ...env,
    });
    s.served = await runServe('dev', settings, () => {});
    s.url = s.served.gatewayUrl as string;
    s.client = createSluiceClient<typeof jobs>({
      url: s.url,
      apiKey: key,
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    });
  }, 60_000);
  afterAll(async () => {
    await s.client?.close();
    await s.served?.stop(5_000);
  });
  return s;
}

/** `sluice <args>` in-process against the server, with its URL and `key`. */
export async function sluiceAgainst(s: OpsServer, key: string, args: string[], isTTY = false) {
  const io = captureIo({ env: { SLUICE_URL: s.url, SLUICE_API_KEY: key }, isTTY });
  const code = await main(args, io);
  return { code, out: io.stdout, err: io.stderr, text: io.text() };
}
