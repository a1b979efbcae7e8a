// Metrics a scraper can reach, and only where the operator said. The bugs this catches: the
// worker's probes/metrics listener bound every interface while printing 127.0.0.1; the gateway's
// metrics port was hard-wired to 127.0.0.1 (unreachable from Prometheus in another container);
// under `sluice dev` the worker's metrics were on no scrapeable path.

import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runServe, type Served, type ServeMode } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';

/** An address of this machine that is not loopback: what another container would connect to. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i?.family === 'IPv4' && !i.internal)?.address;

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

let served: Served | undefined;
afterEach(async () => {
  await served?.stop(1_000);
  served = undefined;
});

async function serve(mode: ServeMode, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-metrics-'));
  const lines: string[] = [];
  served = await runServe(
    mode,
    resolveSettings(config, {
      DATABASE_URL: join(dir, 'sluice.db'),
      SLUICE_BLOBS_DIR: join(dir, 'blobs'),
      PORT: '0',
      SLUICE_API_KEY: 'dev_metrics_test_key',
      ...env,
    }),
    (l) => lines.push(l),
  );
  return lines;
}

const portIn = (lines: string[], re: RegExp) => Number(re.exec(lines.join('\n'))?.[1]);

describe.skipIf(!outside)('metrics listeners bind where they say and print it', () => {
  it('the worker probes listener binds loopback by default, and says so', async () => {
    const lines = await serve('worker', { SLUICE_WORKER_PORT: '0' });
    const port = portIn(lines, /worker probes listening on 127\.0\.0\.1:(\d+) /);
    expect(await answers('127.0.0.1', port)).toBe(true);
    expect(await answers(outside as string, port)).toBe(false);
  });

  it('--metrics-host 0.0.0.0 opens the worker probes and the gateway metrics port to the network', async () => {
    const metricsPort = await freePort();
    const lines = await serve('dev', {
      SLUICE_WORKER_PORT: '0',
      SLUICE_METRICS_PORT: String(metricsPort),
      SLUICE_METRICS_HOST: '0.0.0.0',
    });
    expect(lines.join('\n')).toContain(`gateway metrics listening on 0.0.0.0:${metricsPort} `);
    const workerPort = portIn(lines, /worker probes listening on 0\.0\.0\.0:(\d+) /);
    for (const port of [metricsPort, workerPort])
      expect(await answers(outside as string, port)).toBe(true);
    const res = await fetch(`http://${outside}:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
  });
});

describe('sluice dev: one scrape sees both halves', () => {
  it("the gateway's /metrics carries the worker's families, each family once", async () => {
    await serve('dev', {});
    const res = await fetch(`${served?.gatewayUrl}/metrics`, {
      headers: { authorization: 'Bearer dev_metrics_test_key' },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE sluice_gateway_\w+ /m);
    expect(text).toMatch(/^# TYPE sluice_worker_\w+ /m);
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    expect(types.filter((l) => l.startsWith('# TYPE process_cpu_seconds_total '))).toHaveLength(1);
  });
});
