import { defineJob, defineJobs } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSettings, rolloutEnvName } from './define-config.js';
import { embedded } from './runtimes/embedded.js';

const jobs = defineJobs(
  defineJob({
    kind: 'video.render-scene',
    versions: { current: 'v1', next: 'v2' },
    input: z.object({}),
    output: z.null(),
  }),
);

describe('resolveSettings', () => {
  it('uses the embedded defaults', () => {
    expect(resolveSettings({ jobs }, {})).toMatchObject({
      database: '.sluice/sluice.db',
      blobsDir: '.sluice/blobs',
      runtime: expect.objectContaining({ name: 'embedded' }),
      port: 3000,
      hostname: '127.0.0.1',
      workerPort: undefined,
      metricsPort: undefined,
      workerId: undefined,
      leaseMs: 30_000,
      deadAfterMs: 5000,
      drainMs: 30_000,
      blobs: '.sluice/blobs',
      rollout: {},
      devApiKey: undefined,
      signingSecret: undefined,
    });
  });
  it('lets the environment win over the file', () => {
    const s = resolveSettings(
      {
        jobs,
        database: 'file.db',
        port: 4000,
        runtime: embedded(),
        rollout: { 'video.render-scene': 5 },
      },
      {
        DATABASE_URL: 'postgres://x/y',
        PORT: '5000',
        SLUICE_WORKER_PORT: '0',
        SLUICE_WORKER_ID: 'w-7',
        SLUICE_API_KEY: 'k',
        SLUICE_DRAIN_MS: '45000',
        SLUICE_BLOBS: 's3://bucket/prefix',
        SLUICE_SIGNING_SECRET: 'x'.repeat(32),
        [rolloutEnvName('video.render-scene')]: '25',
      },
    );
    expect(s).toMatchObject({
      database: 'postgres://x/y',
      port: 5000,
      workerPort: 0,
      workerId: 'w-7',
      devApiKey: 'k',
      drainMs: 45_000,
      blobs: 's3://bucket/prefix',
      signingSecret: 'x'.repeat(32),
      rollout: { 'video.render-scene': 25 },
    });
    expect(rolloutEnvName('video.render-scene')).toBe('SLUICE_ROLLOUT_VIDEO_RENDER_SCENE');
  });
  it.each([
    [{ PORT: 'abc' }, /PORT must be a non-negative integer/],
    [{ PORT: '-1' }, /PORT must be/],
    [{ SLUICE_RUNTIME: 'kafka' }, /SLUICE_RUNTIME \(--runtime\) must be/],
    [{ SLUICE_RUNTIME: 'valkey-streams' }, /needs REDIS_URL/],
    [{ SLUICE_ROLLOUT_VIDEO_RENDER_SCENE: '101' }, /rolloutPercent must be 0–100/],
    [{ SLUICE_DRAIN_MS: '30s' }, /SLUICE_DRAIN_MS must be a non-negative integer/],
    [{ SLUICE_SIGNING_SECRET: 'x'.repeat(31) }, /SLUICE_SIGNING_SECRET must be at least 32 bytes/],
  ])('refuses %o', (env, message) => {
    expect(() => resolveSettings({ jobs }, env)).toThrowError(message);
  });
  it('checks retention at start: parsed durations, and INVALID_CONFIG naming a wrong field', () => {
    expect(resolveSettings({ jobs }, {}).retention).toEqual({});
    const s = resolveSettings(
      {
        jobs,
        retention: { tenants: { acme: { succeeded: '1d', stale: 'forever' } }, archive: true },
      },
      {},
    );
    expect(s.retention).toEqual({
      tenants: { acme: { succeeded: 86_400_000, stale: null } },
      archive: true,
    });
    expect(() =>
      resolveSettings({ jobs, retention: { default: { failed: 'one month' } } as never }, {}),
    ).toThrowError(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        details: { field: 'retention.default.failed' },
      }),
    );
  });
  it('refuses a rollout for an unknown kind', () => {
    expect(() => resolveSettings({ jobs, rollout: { 'a.b': 1 } }, {})).toThrowError(
      /unknown kind "a.b"/,
    );
  });
});
