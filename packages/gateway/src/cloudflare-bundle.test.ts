// The Workers entry (`@sluice/gateway/cloudflare`) bundles for workerd with nothing from Node: no
// `node:` built-in, no pg, better-sqlite3 or iovalkey, no pino, prom-client or ws. Built the way
// wrangler builds a Worker (esbuild, browser platform, the `workerd`/`worker` export
// conditions), then read back: a value import that slips in (node:crypto for a hash, the
// WebSocket endpoint, the Node tailers) fails here, long before a deploy would.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|ws$|@hono\/node-server|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;
const FORBIDDEN_INPUTS =
  /node_modules\/(pg|better-sqlite3|iovalkey|pino|prom-client|ws|@hono\/node-server)\//;

async function bundle(entry: string) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@sluice/source', 'workerd', 'worker', 'browser'],
    external: ['cloudflare:*'],
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const imports = Object.values(result.metafile.inputs).flatMap((i) =>
    i.imports.map((m) => m.path),
  );
  return {
    inputs,
    imports,
    text: result.outputFiles[0]?.text ?? '',
    bytes: result.outputFiles[0]?.contents.length ?? 0,
  };
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
      'src/accept.ts',
      'src/events/watch-job.ts',
      'storage/src/dialect/d1/open-d1.ts',
      '@hono/trpc-server',
    ]) {
      expect(b.inputs.some((p) => p.includes(part))).toBe(true);
    }
    for (const nodeOnly of ['websocket.ts', 'sqlite-tailer.ts', 'input-hash.ts', 'metrics.ts']) {
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
