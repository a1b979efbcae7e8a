// The runtime objects and the CLI's name map: the config takes an object, the environment picks
// one by name or overrides its options, and each runtime checks what it still lacks.
import { defineJob, defineJobs } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSettings } from '../define-config.js';
import { cloudflareWorkflows } from '@sluice/runtime-cloudflare-workflows';
import { RUNTIME_FACTORIES, RUNTIME_NAMES, runtimeByName } from './registry.js';
import { valkeyStreams } from '@sluice/runtime-valkey-streams';

const jobs = defineJobs(
  defineJob({ kind: 'demo.a', versions: { current: 'v1' }, input: z.object({}), output: z.null() }),
);

describe('the runtime name map', () => {
  it('names each runtime once, under its own name, and each worker half matches its pullsDeliveries flag', () => {
    // A runtime added to the map needs no edit here: each entry is checked against its own object.
    expect(RUNTIME_NAMES).toEqual(
      expect.arrayContaining(['embedded', 'valkey-streams', 'cloudflare-workflows', 'nats']),
    );
    for (const [name, factory] of Object.entries(RUNTIME_FACTORIES)) {
      const rt = factory();
      expect(rt.name).toBe(name);
      expect(rt.worker().kind === 'pull').toBe(rt.capabilities.pullsDeliveries);
    }
  });

  it('an unknown name is refused with the list of known ones', () => {
    expect(() => runtimeByName('kafka')).toThrowError(
      new RegExp(
        `must be ${RUNTIME_NAMES.slice(0, -1).join(', ')} or ${RUNTIME_NAMES.at(-1)}, got "kafka"`,
      ),
    );
  });

  it('SLUICE_RUNTIME naming the configured runtime keeps its options; the environment wins over them', () => {
    const configured = valkeyStreams({ url: 'redis://file:1', fairness: false });
    const s = resolveSettings(
      { jobs, runtime: configured },
      { SLUICE_RUNTIME: 'valkey-streams', REDIS_URL: 'redis://env:2' },
    );
    expect(s.runtime.options).toEqual({ url: 'redis://env:2', fairness: false });
    // Naming another runtime takes that one with its defaults.
    expect(
      resolveSettings({ jobs, runtime: configured }, { SLUICE_RUNTIME: 'embedded' }).runtime.name,
    ).toBe('embedded');
  });
});

describe('valkeyStreams()', () => {
  it('streams_fairness_is_checked_at_start: a depth below 1 or an unknown key is INVALID_CONFIG naming the field', () => {
    expect(valkeyStreams({ fairness: { maxUndelivered: 64 } }).options).toEqual({
      fairness: { maxUndelivered: 64 },
    });
    for (const fairness of [
      { maxUndelivered: 0 },
      { maxUndelivered: 1.5 },
      { maxUndeliverd: 64 },
      true,
    ]) {
      expect(() => valkeyStreams({ fairness } as never)).toThrowError(
        expect.objectContaining({
          code: 'INVALID_CONFIG',
          message: expect.stringMatching(/valkey-streams runtime's fairness/),
        }),
      );
    }
  });

  it('streams_fairness_flag_follows_the_dispatch: fair across tenants unless fairness is false', () => {
    expect(valkeyStreams({ url: 'redis://x' }).capabilities.fairAcrossTenants).toBe(true);
    expect(valkeyStreams({ fairness: {} }).capabilities.fairAcrossTenants).toBe(true);
    expect(valkeyStreams({ fairness: false }).capabilities.fairAcrossTenants).toBe(false);
  });

  it('pointer snapshots are on unless turned off, and the option is a boolean', () => {
    expect(valkeyStreams({ url: 'redis://x' }).capabilities.startsFromPointer).toBe(true);
    expect(valkeyStreams({ pointerSnapshots: false }).capabilities.startsFromPointer).toBe(false);
    expect(() => valkeyStreams({ pointerSnapshots: 'no' } as never)).toThrowError(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/pointerSnapshots/),
      }),
    );
  });

  it('needs a url, from the options or REDIS_URL', async () => {
    expect(() => resolveSettings({ jobs, runtime: valkeyStreams() }, {})).toThrowError(
      /the valkey-streams runtime needs REDIS_URL/,
    );
    const half = valkeyStreams().worker();
    expect(half.kind).toBe('pull');
    if (half.kind === 'pull')
      await expect(half.consumer({ database: {} as never })).rejects.toThrowError(
        /needs REDIS_URL/,
      );
  });
});

describe('cloudflareWorkflows()', () => {
  it('asks for its account, token, workflows and secret', () => {
    const env = { SLUICE_RUNTIME: 'cloudflare-workflows' };
    expect(() => resolveSettings({ jobs }, env)).toThrowError(/needs CLOUDFLARE_ACCOUNT_ID/);
    const full = {
      ...env,
      CLOUDFLARE_ACCOUNT_ID: 'acc',
      CLOUDFLARE_API_TOKEN: 'tok',
      SLUICE_STATE_CALLBACK_SECRET: 's'.repeat(32),
    };
    expect(() => resolveSettings({ jobs }, full)).toThrowError(/needs workflows/);
    const s = resolveSettings(
      { jobs, runtime: cloudflareWorkflows({ workflows: { v1: 'a-v1' } }) },
      full,
    );
    expect(s.runtime.name).toBe('cloudflare-workflows');
    expect(s.runtime.options).toMatchObject({ accountId: 'acc', workflows: { v1: 'a-v1' } });
  });

  it('its gateway half is the REST dispatcher with the callback routes; its worker half is a push entry', async () => {
    const rt = cloudflareWorkflows({
      workflows: { v1: 'a-v1' },
      accountId: 'acc',
      apiToken: 'tok',
      callbackSecret: 's'.repeat(32),
    });
    expect(rt.worker()).toMatchObject({
      kind: 'push',
      entry: '@sluice/runtime-cloudflare-workflows/worker',
    });
    const half = await rt.gateway({ database: {} as never });
    expect(half.dispatcher.name).toBe('cloudflare-workflows');
    expect(half.dispatcher.capabilities.pullsDeliveries).toBe(false);
    expect(typeof half.routes).toBe('function');
  });
});
