import { defineJob, defineJobs } from '@sluice/contracts';
import { createEmbeddedDispatcher, createGateway, serve, UNLIMITED_RATE } from '@sluice/gateway';
import { createApiKey, createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { createSluiceClient } from '../src/index.js';

const input = z.object({ n: z.number() });
const output = z.object({ n: z.number() });
const jobs = defineJobs(
  defineJob({ kind: 'b.plain', versions: { current: 'v1' }, input, output }),
  defineJob({ kind: 'b.batch', versions: { current: 'v1' }, input, output, batch: { maxSize: 1000, maxWaitMs: 600_000 } }),
);
const N = Number(process.env.N ?? 300);
for (const dialect of ['sqlite', 'postgres'] as const) {
  const db = await createTestDatabase(dialect);
  const gateway = createGateway({ jobs, database: db.database, blobs: createLocalBlobStore(mkdtempSync(join(tmpdir(), 'fb-'))), runtime: createEmbeddedDispatcher(db.database), logger: { warn() {}, error() {} }, servedVersionsCacheMs: 60_000, limits: { keyRate: UNLIMITED_RATE, tenantRate: UNLIMITED_RATE } });
  const server = await serve(gateway, { port: 0 });
  const { key } = await createApiKey(db.database.db, 'acme');
  const client = createSluiceClient<typeof jobs>({ url: server.url, apiKey: key, WebSocket });
  const cases: [string, (i: number) => Promise<unknown>][] = [
    ['plain', (i) => client.submit('b.plain', { n: i })],
    ['debounce one key (folds)', (i) => client.submit('b.plain', { n: i }, { debounce: { key: 'k', delayMs: 600_000 } })],
    ['debounce key per submit (opens)', (i) => client.submit('b.plain', { n: i }, { debounce: { key: `k${i}`, delayMs: 600_000 } })],
    ['singleton skip one key', (i) => client.submit('b.plain', { n: i }, { singleton: { key: 's', mode: 'skip' } })],
    ['singleton queue one key (holds)', (i) => client.submit('b.plain', { n: i }, { singleton: { key: 'q', mode: 'queue' } })],
    ['batch append one key', (i) => client.submit('b.batch', { n: i })],
  ];
  for (const conc of [1, 16]) {
    for (const [name, fn] of cases) {
      await fn(-1); // warm
      const lat: number[] = [];
      const t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: conc }, async () => {
        while (next < N) { const i = next++; const s = performance.now(); await fn(i + conc * 10000); lat.push(performance.now() - s); }
      }));
      const wall = performance.now() - t0;
      lat.sort((a, b) => a - b);
      const p = (q: number) => lat[Math.floor(q * (lat.length - 1))]!.toFixed(1);
      console.log(`${dialect} c=${conc} ${name.padEnd(34)} ${(N / (wall / 1000)).toFixed(0).padStart(5)}/s  p50 ${p(0.5)} ms  p99 ${p(0.99)} ms`);
    }
  }
  await client.close(); await server.close(); await gateway.close(); await db.dispose();
}
