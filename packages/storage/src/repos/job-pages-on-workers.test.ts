// Catches Node-only globals on the Workers read path: `listJobs` used `Buffer` for its cursor, and
// the Workers gateway answered a `jobs.list` with a next page with 500 `ReferenceError: Buffer is
// not defined`. The workerd suite (vitest.workers.config.ts) cannot see it: its runner needs
// `nodejs_compat`, which puts `Buffer` and `process` on the global object. So this case builds the
// workerd entry as wrangler builds a Worker and runs it in workerd (miniflare) the way a
// production Worker runs: no compatibility flags, a D1 binding, pages of 3 over 7 jobs.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';

const WORKER = `
import { formatJobId } from '@sluice/contracts';
import { insertJob, listJobs, migrate, openD1Database } from './d1.js';

export default {
  async fetch(_request, env) {
    try {
      const database = openD1Database(env.DB);
      await migrate(database);
      const ids = [];
      const t0 = Date.now();
      for (let i = 0; i < 7; i++) {
        const id = formatJobId('v1');
        ids.push(id);
        const job = { id, tenantId: 'pager', kind: 'k', version: 'v1', input: { i }, inputHash: 'h', maxAttempts: 1 };
        await insertJob(database.db, job, t0 + i);
      }
      await insertJob(database.db, { id: formatJobId('v1'), tenantId: 'intruder', kind: 'k',
        version: 'v1', input: {}, inputHash: 'h', maxAttempts: 1 }, t0 + 3);
      const seen = [];
      const cursors = [];
      let cursor = null;
      do {
        const page = await listJobs(database.db, 'pager', { limit: 3, cursor });
        seen.push(...page.items.map((j) => j.id));
        cursor = page.nextCursor;
        if (cursor) cursors.push(cursor);
      } while (cursor && cursors.length < 10);
      return Response.json({ ids, seen, cursors });
    } catch (error) {
      return Response.json({ error: String(error) }, { status: 500 });
    }
  },
};`;

let mf: Miniflare | undefined;

beforeAll(async () => {
  const built = await build({
    stdin: {
      contents: WORKER,
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      sourcefile: 'pages-worker.js',
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@sluice/source', 'workerd', 'worker', 'browser'],
    external: ['cloudflare:*'],
    logLevel: 'silent',
  });
  mf = new Miniflare({
    workers: [
      {
        config: {
          name: 'job-pages',
          type: 'worker',
          compatibilityDate: '2026-08-01',
          manifest: {
            mainModule: 'pages-worker.js',
            modules: {
              'pages-worker.js': { type: 'esm', contents: built.outputFiles[0]?.text ?? '' },
            },
          },
          env: { DB: { type: 'd1', name: 'job-pages' } },
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

it('a Worker pages through a tenant’s jobs with cursors (no Node global on the way)', async () => {
  const res = await mf!.dispatchFetch('http://worker.test/');
  const body = (await res.json()) as {
    error?: string;
    ids: string[];
    seen: string[];
    cursors: string[];
  };
  expect(body.error).toBeUndefined();
  expect(res.status).toBe(200);
  expect(body.cursors).toHaveLength(2); // 7 jobs, pages of 3: two next-page cursors
  expect(body.seen).toEqual([...body.ids].reverse());
  // The cursor is URL-safe text (it travels in query strings).
  for (const c of body.cursors) expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
}, 60_000);
