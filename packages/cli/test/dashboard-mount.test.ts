// The operator UI where the operator was told it is: `sluice dev` serves it at /dashboard (the
// UI built once here), `sluice gateway` only with `--dashboard [path]` (SLUICE_DASHBOARD), `off`
// serves none, and a path that is not a plain URL path is a config error naming the variable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDashboardBuilt } from '@sluice/dashboard';
import { build } from 'vite';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runServe, type Served, type ServeMode } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.stop(1_000);
  served = undefined;
});

async function serve(mode: ServeMode, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-dashboard-'));
  const lines: string[] = [];
  served = await runServe(
    mode,
    resolveSettings(config, {
      DATABASE_URL: join(dir, 'sluice.db'),
      SLUICE_BLOBS_DIR: join(dir, 'blobs'),
      PORT: '0',
      ...env,
    }),
    (l) => lines.push(l),
  );
  return { lines, url: served.gatewayUrl as string };
}

const status = async (url: string) => (await fetch(url, { redirect: 'manual' })).status;

describe('the dashboard on the gateway', () => {
  beforeAll(async () => {
    if (!isDashboardBuilt()) {
      const configFile = fileURLToPath(new URL('../../dashboard/vite.config.ts', import.meta.url));
      await build({ configFile, logLevel: 'warn' });
    }
  }, 120_000);

  it('sluice dev serves it at /dashboard and says where', async () => {
    const { lines, url } = await serve('dev', {});
    expect(lines).toContain(`dashboard on ${url}/dashboard/ (sign in with an API key)`);
    const page = await fetch(`${url}/dashboard/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<base href="/dashboard/" />');
  });

  it('sluice dev with SLUICE_DASHBOARD=off serves none', async () => {
    const { lines, url } = await serve('dev', { SLUICE_DASHBOARD: 'off' });
    expect(lines.join('\n')).not.toContain('dashboard on');
    expect(await status(`${url}/dashboard/`)).toBe(404);
  });

  it('sluice gateway serves it only when asked, at the path given', async () => {
    const plain = await serve('gateway', {});
    expect(await status(`${plain.url}/dashboard/`)).toBe(404);
    await served?.stop(1_000);
    const asked = await serve('gateway', { SLUICE_DASHBOARD: '/ops' });
    expect(await status(`${asked.url}/ops/`)).toBe(200);
    expect(await status(`${asked.url}/ops`)).toBe(308);
  });

  it('a path that is not a plain URL path is refused, naming the variable', () => {
    expect(() => resolveSettings(config, { SLUICE_DASHBOARD: 'javascript:alert(1)' })).toThrow(
      /SLUICE_DASHBOARD/,
    );
  });
});
