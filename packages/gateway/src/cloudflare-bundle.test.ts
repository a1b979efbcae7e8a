// The Workers entry (`@sluice/gateway/cloudflare`) bundles for workerd with nothing from Node: no
// `node:` built-in, no pg, better-sqlite3 or iovalkey, no pino, prom-client or ws. Built the way
// wrangler builds a Worker (esbuild, browser platform, the `workerd`/`worker` export
// conditions), then read back: a value import that slips in (node:crypto for a hash, the
// WebSocket endpoint, the Node tailers) fails here, long before a deploy would.
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|ws$|@hono\/node-server|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;
const FORBIDDEN_INPUTS =
  /node_modules\/(pg|better-sqlite3|iovalkey|pino|prom-client|ws|@hono\/node-server)\//;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

describe('the Workers gateway entry bundles without Node', () => {
  it('@sluice/gateway/cloudflare pulls in no Node built-in, driver or Node-only library', async () => {
    const b = await bundle('./cloudflare/index.ts');
    expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
    expect(b.inputs.filter((p) => FORBIDDEN_INPUTS.test(p))).toEqual([]);
    expect(b.text).not.toMatch(/^\s*(import|export)\b[^;]*?from\s*["'](?!cloudflare:)/m);
    expect(b.text).not.toMatch(/\b(require|import)\(\s*["']node:/);
    // what it is made of: the same router, gatekeeper and accept path as the Node gateway
    for (const part of [
      'src/routers/index.ts',
      'src/auth/gatekeeper.ts',
      'src/accept/accept.ts',
      'src/wire/wire-gateway.ts',
      'src/events/watch-job.ts',
      'storage/src/dialect/d1/open-d1.ts',
      '@hono/trpc-server',
    ]) {
      expect(b.inputs.some((p) => p.includes(part))).toBe(true);
    }
    for (const nodeOnly of [
      'http/websocket.ts',
      'events/sqlite-tailer.ts',
      'accept/input-hash.ts',
      'observability/metrics.ts',
    ]) {
      expect(b.inputs).not.toContain(`src/${nodeOnly}`);
    }
    console.log(
      `@sluice/gateway/cloudflare bundle: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.inputs.length} inputs`,
    );
  });

  it('the check itself fails on the Node entry', async () => {
    const b = await bundle('./index.ts').catch((error: Error) => ({ error }));
    if ('error' in b) expect(String(b.error)).toMatch(/node:|better-sqlite3|pg|iovalkey|resolve/);
    else expect(b.imports.filter((p) => FORBIDDEN.test(p)).length).toBeGreaterThan(0);
  });
});
