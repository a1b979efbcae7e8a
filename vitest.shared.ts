// One vitest base for every package: resolve workspace packages to their sources through the
// `@sluice/source` export condition, so tests need no build (the packages' `exports` name it
// first; `types`/`import` point at dist for everyone else).
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const conditions = ['@sluice/source', 'module', 'node', 'development|production'];
const serverConditions = conditions.filter((c) => c !== 'module');

/** Under Stryker the fast-check seed must be fixed, or every property mutant "survives". */
const strykerSetup = process.env.STRYKER_MUTATOR_WORKER
  ? [new URL('./scripts/fixed-fc-seed.ts', import.meta.url).pathname]
  : [];

export function sluiceVitest(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions },
    // Without `module` on the server side: through it vite picks bundler builds (the AWS SDK's
    // dist-es) whose extensionless imports Node cannot load.
    ssr: { resolve: { conditions: serverConditions, externalConditions: ['@sluice/source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // Generous: CI has two cores for three suites side by side, and child processes (tsx) can
      // take tens of seconds to start there; a hang still fails, only later.
      testTimeout: 45_000,
      hookTimeout: 90_000,
      passWithNoTests: true,
      // Job state lines (info) from every worker and gateway would bury test output; tests that
      // check them pass their own level. Child processes inherit it.
      env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
      ...overrides,
      setupFiles: [...strykerSetup, ...(overrides.setupFiles ? [overrides.setupFiles].flat() : [])],
    },
  });
}
