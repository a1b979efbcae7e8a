// The package's Workers entry (`@sluice/runtime-cloudflare-workflows/worker`) bundles for workerd
// with nothing from Node — no `node:` built-in, no pg, better-sqlite3 or iovalkey, no pino or
// prom-client, none of the Node gateway half — and its Node entry does not: built the way
// wrangler builds a Worker (esbuild, browser platform, the `workerd`/`worker` conditions,
// `cloudflare:*` left to the runtime), then read back. A Node value import reaching `./worker`
// (the REST dispatcher, the signed routes, or anything `@sluice/worker/platform` pulls in: node:http
// for the guard, node:crypto for a hash) fails here, long before a deploy would.
import { resolve } from 'node:path';
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|hono$|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;
const FORBIDDEN_INPUTS = /node_modules\/(pg|better-sqlite3|iovalkey|pino|prom-client|hono)\//;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

describe('the Workers entry bundles without Node', () => {
  it('./worker pulls in no Node built-in, no driver and none of the Node gateway half', async () => {
    const b = await bundle('./worker.ts');
    expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
    expect(b.inputs.filter((p) => FORBIDDEN_INPUTS.test(p))).toEqual([]);
    // Only workerd's own modules stay external.
    expect(b.text).not.toMatch(/^\s*(import|export)\b[^;]*?from\s*["'](?!cloudflare:)/m);
    expect(b.text).not.toMatch(/\b(require|import)\(\s*["']node:/);
    // what it is made of: the run, the worker's push-platform entry with the stage runner and the
    // guard's fetch sender, storage on D1 (paths made absolute: esbuild names them from the cwd)
    const inputs = b.inputs.map((p) => resolve(p));
    for (const part of [
      '/runtime-cloudflare-workflows/src/worker/workflow-run.ts',
      '/worker/src/platform.ts',
      '/worker/src/attempt/stage-runner.ts',
      '/worker/src/guard/send-fetch.ts',
      '/storage/src/dialect/d1/open-d1.ts',
    ]) {
      expect(inputs.some((p) => p.includes(part))).toBe(true);
    }
    expect(inputs.some((p) => p.includes('/guard/send-request.ts'))).toBe(false);
    expect(inputs.some((p) => p.includes('/runtime-cloudflare-workflows/src/gateway/'))).toBe(
      false,
    );
    expect(b.imports).toEqual(
      expect.arrayContaining(['cloudflare:workers', 'cloudflare:workflows']),
    );
    console.log(
      `@sluice/runtime-cloudflare-workflows/worker bundle: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.inputs.length} inputs`,
    );
  });

  it('the check itself fails on the Node entry', async () => {
    const b = await bundle('./index.ts').catch((error: Error) => ({ error }));
    if ('error' in b) expect(String(b.error)).toMatch(/node:|better-sqlite3|pg|iovalkey|resolve/);
    else expect(b.imports.filter((p) => FORBIDDEN.test(p)).length).toBeGreaterThan(0);
  });
});
