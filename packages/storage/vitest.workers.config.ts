// The workerd run: the storage's D1 and R2 code under test inside workerd itself (miniflare via
// @cloudflare/vitest-pool-workers), against the D1 database and R2 bucket of wrangler.test.jsonc.
// Node-only suites stay in vitest.config.ts; the suites shared by both runs live in `*.case.ts`.
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const conditions = ['@sluice/source', 'workerd', 'worker', 'browser', 'module', 'import'];

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.test.jsonc' } })],
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@sluice/source'] } },
  test: {
    include: ['workerd/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
