// Global setup of the workerd run (runs in Node): the testkit's fake paid provider on loopback.
// workerd reaches it with a real fetch, so the guard's ledger-before-send and the provider's
// own bill count are both real; tests read the bill count from its admin API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// By path: the global setup is loaded by the workers plugin's Node-side runner, which does not
// apply the `@sluice/source` export condition to workspace packages (the testkit's `dist` may not
// be built). A test helper, never shipped: the public-entries rule is for the package's code.
// eslint-disable-next-line no-restricted-imports -- test-only, loaded without the source condition
import { createFakeProviderServer } from '../../testkit/src/fake-provider/server.js';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    providerUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-wf-provider-'));
  const server = await createFakeProviderServer({ ledgerPath: join(dir, 'ledger.jsonl') });
  project.provide('providerUrl', server.url);
  return async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
