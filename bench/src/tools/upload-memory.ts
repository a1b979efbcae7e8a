// Dev tool: what row 7's RSS growth is made of. One gateway in this process (SQLite, local blob
// store), one 64 KiB upload to warm it, then one upload of <MiB> MiB from this process, with
// `process.memoryUsage()` sampled every 5 ms: the peak growth of RSS, the V8 heap and the memory
// outside it (`arrayBuffers`: Buffer backing stores). The client's own buffers count too (a 1 MiB
// chunk re-sent, and the socket's writes), so read it beside row 7, not instead of it.
//
//   npx tsx src/tools/upload-memory.ts [MiB]
//   NODE_OPTIONS=--max-semi-space-size=2 npx tsx src/tools/upload-memory.ts
//
// What it showed on Node 24 (bench/README.md, "Upload memory"): the growth is Buffers already
// dropped by the upload path and not yet collected, not data held: V8 frees their backing stores
// only when it collects their small JS wrappers, so the peak follows how often the young
// generation is scavenged (smaller semi-space, lower peak), bounded by V8's own trigger on
// external memory growth.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedDispatcher, createGateway, serve, UNLIMITED_RATE } from '@sluice/gateway';
import { createApiKey, createLocalBlobStore, migrate, openDatabase } from '@sluice/storage';
import { benchJobs, BENCH_TENANT } from '../sluice/bench-job.js';
import { post } from '../sluice/upload.js';

const MIB = 1024 * 1024;
const mib = Number(process.argv[2] ?? 1024);
if (!Number.isInteger(mib) || mib < 1) throw new Error('usage: upload-memory.ts [MiB ≥ 1]');

const dir = mkdtempSync(join(tmpdir(), 'sluice-upload-memory-'));
const database = openDatabase({ url: `sqlite://${join(dir, 'db.sqlite')}` });
await migrate(database);
const gateway = createGateway({
  jobs: benchJobs,
  database,
  blobs: createLocalBlobStore(join(dir, 'blobs')),
  runtime: createEmbeddedDispatcher(database),
  uploads: { maxBytes: (mib + 1) * MIB, sweepIntervalMs: 0 },
  limits: { keyRate: UNLIMITED_RATE, tenantRate: UNLIMITED_RATE },
});
const running = await serve(gateway, { port: 0 });
try {
  const { key } = await createApiKey(database.db, BENCH_TENANT, 'upload-memory');
  if ((await post(`${running.url}/v1/uploads`, key, 64 * 1024)).status !== 201)
    throw new Error('warm-up refused');
  type Field = 'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers';
  const fields: Field[] = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];
  const before = process.memoryUsage();
  const peak = Object.fromEntries(fields.map((f) => [f, before[f]])) as Record<Field, number>;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    for (const f of fields) peak[f] = Math.max(peak[f], now[f]);
  }, 5);
  const { status } = await post(`${running.url}/v1/uploads`, key, mib * MIB);
  clearInterval(sampler);
  if (status !== 201) throw new Error(`upload answered ${status}`);
  const growth = fields.map((f) => `${f} +${((peak[f] - before[f]) / MIB).toFixed(1)}`);
  console.log(`Node ${process.version}, ${mib} MiB upload, peak growth MiB: ${growth.join(', ')}`);
} finally {
  await running.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
