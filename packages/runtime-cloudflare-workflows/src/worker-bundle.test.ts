// The package's Workers entry (`@sluice/runtime-cloudflare-workflows/worker`) bundles for workerd
// with nothing from Node, and its Node entry does not: built the way wrangler builds a Worker
// (esbuild, browser platform, the `workerd`/`worker` conditions, `cloudflare:*` left to the
// runtime). A Node value import reaching `./worker` (the REST dispatcher, the signed routes) fails
// here, long before a deploy would.
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|hono$|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

describe('the Workers entry bundles without Node', () => {
  it('./worker pulls in no Node built-in, no driver and none of the Node gateway half', async () => {
    const b = await bundle('./worker.ts');
    expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
    expect(b.inputs.some((p) => p.includes('cloudflare/workflow-run.ts'))).toBe(true);
    expect(b.inputs.some((p) => p.includes('runtime-cloudflare-workflows/src/gateway/'))).toBe(
      false,
    );
  });

  it('the check itself fails on the Node entry', async () => {
    const b = await bundle('./index.ts').catch((error: Error) => ({ error }));
    if ('error' in b) expect(String(b.error)).toMatch(/node:|better-sqlite3|pg|iovalkey|resolve/);
    else expect(b.imports.filter((p) => FORBIDDEN.test(p)).length).toBeGreaterThan(0);
  });
});
