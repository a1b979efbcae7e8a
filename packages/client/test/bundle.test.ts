// The client runs in browsers: bundled the way an app's bundler would (browser conditions), it
// must contain no server code and no zod. A value import from `@sluice/contracts` instead of
// `@sluice/contracts/wire`, or a Node-only dependency, fails this test.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { expect, test } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));

async function bundle(minify: boolean): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify, lib: { entry, formats: ['es'] } },
    resolve: { conditions: ['@sluice/source', 'browser', 'module', 'import'] },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  return outputs
    .flatMap((o) => o.output)
    .map((chunk) => (chunk.type === 'chunk' ? chunk.code : ''))
    .join('\n');
}

test('the browser bundle holds no server code and no zod', { timeout: 60_000 }, async () => {
  const code = await bundle(false);
  for (const forbidden of ['iovalkey', 'better-sqlite3', 'kysely', 'ZodError', '$ZodType']) {
    expect(code, forbidden).not.toContain(forbidden);
  }
  expect(code).not.toMatch(/from\s*["']node:/);
  expect(code).not.toMatch(/import\(\s*["']node:/);
  expect(code).not.toMatch(/from\s*["']pg["']/);
  expect(code).not.toMatch(/from\s*["'](ws|zod)["']/);
  // It is the client: the pieces it needs are in.
  expect(code).toContain('jobs.watch');
  expect(code).toContain('JobFailedError');

  const minified = await bundle(true);
  const size = { raw: minified.length, gzip: gzipSync(minified).length };
  console.info(`client bundle: ${size.raw} B minified, ${size.gzip} B gzip`);
  expect(size.gzip).toBeLessThan(40_000);
});
