// The runtime registry: one object per runtime, read by the config and the commands. Its
// entries must agree with their own capability flags (a pushing platform has no pull consumer).
import { defineJob, defineJobs } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSettings } from '../define-config.js';
import { findRuntime, RUNTIMES } from './registry.js';

const jobs = defineJobs(
  defineJob({ kind: 'demo.a', versions: { current: 'v1' }, input: z.object({}), output: z.null() }),
);

describe('the runtime registry', () => {
  it('names each runtime once, and each worker half matches its pullsDeliveries flag', () => {
    const names = RUNTIMES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(['embedded', 'valkey-streams', 'cloudflare-workflows']);
    for (const r of RUNTIMES) {
      expect(r.worker.kind === 'pull').toBe(r.capabilities.pullsDeliveries);
    }
  });

  it('an unknown name is refused with the list of known ones', () => {
    expect(() => findRuntime('kafka')).toThrowError(
      /must be embedded, valkey-streams or cloudflare-workflows, got "kafka"/,
    );
  });

  it("the config asks the runtime what it needs: cloudflare-workflows' account, token, workflows, secret", () => {
    const env = { SLUICE_RUNTIME: 'cloudflare-workflows' };
    expect(() => resolveSettings({ jobs }, env)).toThrowError(/needs CLOUDFLARE_ACCOUNT_ID/);
    const full = {
      ...env,
      CLOUDFLARE_ACCOUNT_ID: 'acc',
      CLOUDFLARE_API_TOKEN: 'tok',
      SLUICE_STATE_CALLBACK_SECRET: 's'.repeat(32),
    };
    expect(() => resolveSettings({ jobs }, full)).toThrowError(/needs cloudflare.workflows/);
    const s = resolveSettings({ jobs, cloudflare: { workflows: { v1: 'a-v1' } } }, full);
    expect(s.runtime).toBe('cloudflare-workflows');
    expect(s.cloudflare).toMatchObject({ accountId: 'acc', workflows: { v1: 'a-v1' } });
  });

  it("the Workflows runtime's gateway half is the REST dispatcher with the state callback; its worker half is a push entry", () => {
    const rt = findRuntime('cloudflare-workflows');
    expect(rt.worker).toMatchObject({ kind: 'push', entry: '@sluice/worker/cloudflare' });
    const settings = resolveSettings(
      { jobs, cloudflare: { workflows: { v1: 'a-v1' } } },
      {
        SLUICE_RUNTIME: 'cloudflare-workflows',
        CLOUDFLARE_ACCOUNT_ID: 'acc',
        CLOUDFLARE_API_TOKEN: 'tok',
        SLUICE_STATE_CALLBACK_SECRET: 's'.repeat(32),
      },
    );
    const half = rt.gateway(settings, {
      database: {} as never,
      blobs: {} as never,
      close: async () => {},
    });
    expect(half.runtime.name).toBe('cloudflare-workflows');
    expect(half.runtime.capabilities.pullsDeliveries).toBe(false);
    expect(half.stateCallback?.secret).toBe('s'.repeat(32));
  });
});
