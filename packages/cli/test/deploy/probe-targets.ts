// A real gateway and worker (`runServe('dev')`, SQLite in a temporary folder), so the probe
// paths the deployment files use are checked against what the code answers.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@sluice/testkit';
import { runServe, type Served } from '../../src/commands/serve.js';
import { resolveSettings } from '../../src/define-config.js';
import config from '../fixtures/ops.config.js';

export interface ProbeTargets {
  gateway: string;
  /** The gateway's separate metrics listener. */
  gatewayMetrics: string;
  worker: string;
  stop(): Promise<void>;
}

export async function startProbeTargets(): Promise<ProbeTargets> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-deploy-'));
  const settings = resolveSettings(config, {
    DATABASE_URL: join(dir, 'sluice.db'),
    SLUICE_BLOBS_DIR: join(dir, 'blobs'),
    PORT: String(await freePort()),
    SLUICE_WORKER_PORT: '0',
    SLUICE_METRICS_PORT: String(await freePort()),
  });
  const served: Served = await runServe('dev', settings, () => {});
  return {
    gateway: served.gatewayUrl as string,
    gatewayMetrics: served.gatewayMetricsUrl as string,
    worker: served.workerProbesUrl as string,
    async stop() {
      await served.stop(2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The status a GET of `path` answers with. */
export async function statusOf(base: string, path: string): Promise<number> {
  const res = await fetch(new URL(path, base));
  await res.arrayBuffer();
  return res.status;
}
