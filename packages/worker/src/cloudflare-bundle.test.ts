// The Workers entries (`@sluice/worker/cloudflare`, `@sluice/worker/core`) bundle for workerd with
// nothing from Node: no `node:` built-in, no pg, better-sqlite3 or iovalkey, no pino or
// prom-client. Built the way wrangler builds a Worker (esbuild, browser platform, the
// `workerd`/`worker` export conditions, `cloudflare:*` left to the runtime), then read back: a
// value import that slips into the core (node:http for the guard, node:crypto for a hash) fails
// here, long before a deploy would.
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;
const FORBIDDEN_INPUTS = /node_modules\/(pg|better-sqlite3|iovalkey|pino|prom-client)\//;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

function expectNoNode(b: Awaited<ReturnType<typeof bundle>>): void {
  expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
  expect(b.inputs.filter((p) => FORBIDDEN_INPUTS.test(p))).toEqual([]);
  // Only workerd's own modules stay external.
  expect(b.text).not.toMatch(/^\s*(import|export)\b[^;]*?from\s*["'](?!cloudflare:)/m);
  expect(b.text).not.toMatch(/\b(require|import)\(\s*["']node:/);
}

describe('the Workers entries bundle without Node', () => {
  it('@sluice/worker/cloudflare pulls in no Node built-in and no driver', async () => {
    const b = await bundle('./cloudflare/index.ts');
    expectNoNode(b);
    // what it is made of: the runtime, the stage runner, the guard's fetch sender, storage on D1
    for (const part of [
      'cloudflare/workflow-run.ts',
      'attempt/stage-runner.ts',
      'guard/send-fetch.ts',
      'storage/src/dialect/d1/open-d1.ts',
    ]) {
      expect(b.inputs.some((p) => p.includes(part))).toBe(true);
    }
    expect(b.inputs.some((p) => p.includes('guard/send-request.ts'))).toBe(false);
    expect(b.imports).toEqual(
      expect.arrayContaining(['cloudflare:workers', 'cloudflare:workflows']),
    );
    console.log(
      `@sluice/worker/cloudflare bundle: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.inputs.length} inputs`,
    );
  });

  it('@sluice/worker/core pulls in no Node built-in and no driver', async () => {
    const b = await bundle('./core.ts');
    expectNoNode(b);
    expect(b.inputs.some((p) => p.includes('attempt/stage-runner.ts'))).toBe(true);
  });

  it('the check itself fails on the Node entry', async () => {
    const b = await bundle('./node.ts').catch((error: Error) => ({ error }));
    if ('error' in b) expect(String(b.error)).toMatch(/node:|better-sqlite3|pg|iovalkey|resolve/);
    else expect(b.imports.filter((p) => FORBIDDEN.test(p)).length).toBeGreaterThan(0);
  });
});
