// The entries a push platform builds on (`@sluice/worker/platform`, `@sluice/worker/core`) bundle
// for workerd with nothing from Node: no `node:` built-in, no pg, better-sqlite3 or iovalkey, no
// pino or prom-client. Built the way a Workers bundler builds them (esbuild, browser platform,
// the `workerd`/`worker` export conditions), then read back: a value import that slips into
// either (node:http for the guard, node:crypto for a hash) fails here, in the worker, before any
// runtime package's bundle does. Neither entry may leave a single import to its runtime: the
// platform's own modules are its runtime package's business.
import { bundleForWorkerd, type WorkerdBundle } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(node:|pg$|pg\/|pg-|better-sqlite3|iovalkey|pino|prom-client|fs$|path$|crypto$|os$|http$|https$|net$|child_process$)/;
const FORBIDDEN_INPUTS = /node_modules\/(pg|better-sqlite3|iovalkey|pino|prom-client)\//;

function bundle(entry: string): Promise<WorkerdBundle> {
  return bundleForWorkerd(new URL(entry, import.meta.url));
}

function expectNoNode(b: WorkerdBundle): void {
  expect(b.imports.filter((p) => FORBIDDEN.test(p))).toEqual([]);
  expect(b.inputs.filter((p) => FORBIDDEN_INPUTS.test(p))).toEqual([]);
  // A runtime's own modules (`<scheme>:…`, left external by the bundler) belong to its package.
  expect(b.imports.filter((p) => /^[a-z][a-z0-9+.-]*:/i.test(p))).toEqual([]);
  expect(b.text).not.toMatch(/^\s*(import|export)\b[^;]*?from\s*["']/m);
  expect(b.text).not.toMatch(/\b(require|import)\(\s*["']node:/);
}

describe('the push-platform entries bundle without Node', () => {
  it('@sluice/worker/platform pulls in no Node built-in and no driver', async () => {
    const b = await bundle('./platform.ts');
    expectNoNode(b);
    // what it is made of: the stage runner, the guard's fetch sender, the write model, storage on D1
    for (const part of [
      'attempt/stage-runner.ts',
      'guard/send-fetch.ts',
      'writers/build-write.ts',
      'storage/src/dialect/d1/open-d1.ts',
    ]) {
      expect(b.inputs.some((p) => p.includes(part))).toBe(true);
    }
    expect(b.inputs.some((p) => p.includes('guard/send-request.ts'))).toBe(false);
    console.log(
      `@sluice/worker/platform bundle: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.inputs.length} inputs`,
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
