// `sluice keys create --scope … --expires …` stores what it says and the gateway enforces it
// (a `metrics:read` key scrapes /metrics and nothing else);
// the dev key (SLUICE_API_KEY) is a live key in `sluice dev` only, never in `sluice gateway`.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listAudit, openDatabase } from '@sluice/storage';
import { freePort } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { parseExpiry, parseScopeList } from '../src/commands/keys.js';
import { runServe } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import { main } from '../src/main.js';
import { captureIo } from './capture-io.js';
import config from './fixtures/ops.config.js';

const CONFIG = fileURLToPath(new URL('./fixtures/ops.config.ts', import.meta.url));

async function status(url: string, key: string, path = '/trpc/jobs.list?input=%7B%7D') {
  return (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })).status;
}

describe('sluice keys create --scope --expires', () => {
  it('parses scopes and expiry, refusing unknown scopes and past dates', () => {
    expect(parseScopeList(undefined)).toEqual(['jobs:submit', 'jobs:read']);
    expect(parseScopeList('jobs:read, review:decide')).toEqual(['jobs:read', 'review:decide']);
    expect(parseScopeList('metrics:read')).toEqual(['metrics:read']);
    expect(() => parseScopeList('jobs:write')).toThrow(/unknown scope "jobs:write"/);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseExpiry('30d', now)?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(parseExpiry('90m', now)?.toISOString()).toBe('2026-01-01T01:30:00.000Z');
    expect(() => parseExpiry('2020-01-01', now)).toThrow(/future ISO date/);
    expect(() => parseExpiry('soon', now)).toThrow(/duration like 30d/);
  });

  it('creates a read-only key the gateway holds to its scope, and lists it with its scopes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-keys-'));
    const env = {
      SLUICE_CONFIG: CONFIG,
      DATABASE_URL: join(dir, 'sluice.db'),
      SLUICE_BLOBS_DIR: join(dir, 'blobs'),
    };
    const io = captureIo({ env, cwd: dir });
    const code = await main(
      ['keys', 'create', '--tenant', 'acme', '--scope', 'jobs:read', '--expires', '1d'],
      io,
    );
    expect(io.stderr).toEqual([]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(io.stdout[0]).toMatch(/scopes jobs:read, expires \d{4}-/);
    const key = io.stdout.at(-1) as string;
    const scraperIo = captureIo({ env, cwd: dir });
    expect(
      await main(['keys', 'create', '--tenant', 'ops', '--scope', 'metrics:read'], scraperIo),
    ).toBe(EXIT_CODES.ok);
    const scraper = scraperIo.stdout.at(-1) as string;
    const bad = captureIo({ env, cwd: dir });
    expect(await main(['keys', 'create', '--tenant', 'acme', '--scope', 'root'], bad)).toBe(
      EXIT_CODES.usage,
    );
    const listed = captureIo({ env, cwd: dir });
    await main(['keys', 'list'], listed);
    expect(listed.stdout.join('\n')).toMatch(
      /\tacme\t\tjobs:read\tcreated .*\tlast used never\texpires /,
    );

    // Creating and revoking keys are operator actions: the audit log names them, via the CLI.
    const extra = captureIo({ env, cwd: dir });
    await main(['keys', 'create', '--tenant', 'acme', '--label', 'temp'], extra);
    const tempId = /created key (\S+) /.exec(extra.stdout[0] as string)?.[1] as string;
    await main(['keys', 'revoke', tempId], captureIo({ env, cwd: dir }));
    const database = openDatabase({ url: env.DATABASE_URL });
    try {
      const log = await listAudit(database.db, { tenantId: 'acme' }, { limit: 10 });
      expect(log.items.map((e) => [e.action, e.details.via])).toEqual([
        ['key.revoke', 'cli'],
        ['key.create', 'cli'],
        ['key.create', 'cli'],
      ]);
      expect(log.items[0]?.target).toBe(tempId);
    } finally {
      await database.close();
    }

    const settings = resolveSettings(config, { ...env, PORT: String(await freePort()) });
    const served = await runServe('gateway', settings, () => {});
    try {
      const url = served.gatewayUrl as string;
      expect(await status(url, key)).toBe(200);
      const submit = await fetch(`${url}/trpc/jobs.submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'ops.steps', input: { units: 1, unitMs: 1 } }),
      });
      expect(submit.status).toBe(403);
      // A scraper's key reads /metrics and nothing else; a job key does not read /metrics.
      expect(await status(url, scraper, '/metrics')).toBe(200);
      expect(await status(url, scraper)).toBe(403);
      expect(await status(url, key, '/metrics')).toBe(403);
    } finally {
      await served.stop(5_000);
    }
  }, 60_000);
});

describe('the dev key', () => {
  it('is accepted by sluice dev and refused by sluice gateway', async () => {
    const DEV_KEY = 'dev_key_for_this_test_only';
    const answers: Record<string, number> = {};
    for (const mode of ['dev', 'gateway'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'sluice-devkey-'));
      const settings = resolveSettings(config, {
        DATABASE_URL: join(dir, 'sluice.db'),
        SLUICE_BLOBS_DIR: join(dir, 'blobs'),
        PORT: String(await freePort()),
        SLUICE_API_KEY: DEV_KEY,
      });
      const lines: string[] = [];
      const served = await runServe(mode, settings, (l) => lines.push(l));
      try {
        answers[mode] = await status(served.gatewayUrl as string, DEV_KEY);
        if (mode === 'gateway') expect(lines.join('\n')).toMatch(/ignored/);
      } finally {
        await served.stop(5_000);
      }
    }
    expect(answers).toEqual({ dev: 200, gateway: 401 });
  }, 60_000);
});
