// The workerd run: the Cloudflare Workflows runtime inside workerd itself (miniflare via
// @cloudflare/vitest-pool-workers), with the Workflow classes, D1, R2 and the DLQ queue of
// wrangler.test.jsonc. The fake provider runs in Node (global setup): a real HTTP provider with
// its own ledger, reached from workerd over loopback by the guard's fetch.
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const conditions = ['@sluice/source', 'workerd', 'worker', 'browser', 'module', 'import'];

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.test.jsonc' } })],
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@sluice/source'] } },
  test: {
    include: ['workerd/**/*.test.ts'],
    globalSetup: ['./workerd/fake-provider-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
