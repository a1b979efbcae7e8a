import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from './define-job.js';
import { isSluiceError } from './errors.js';
import {
  createRetentionPolicy,
  DEFAULT_RETENTION,
  parseDurationMs,
  parseRetention,
  parseRetentionSettings,
  RETENTION_STATES,
  retentionKeyOf,
} from './retention.js';
import { JOB_STATES } from './state-machine.js';

const DAY = 86_400_000;

function configError(fn: () => unknown): { message: string; field: unknown } {
  try {
    fn();
  } catch (error) {
    if (isSluiceError(error) && error.code === 'INVALID_CONFIG')
      return { message: error.message, field: error.details?.field };
    throw error;
  }
  throw new Error('no error');
}

describe('retention durations', () => {
  it('reads ms numbers, duration texts and forever', () => {
    expect(parseDurationMs('7d')).toBe(7 * DAY);
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('2w')).toBe(14 * DAY);
    expect(parseDurationMs('7 days')).toBeUndefined();
    expect(parseRetention({ succeeded: '12h', failed: 1000, stale: 'forever' })).toEqual({
      succeeded: 12 * 3_600_000,
      failed: 1000,
      stale: null,
    });
  });

  it('parsed settings parse again to themselves (a gateway may be handed either)', () => {
    const parsed = parseRetentionSettings({ default: { succeeded: '1d', stale: 'forever' } });
    expect(parseRetentionSettings(parsed)).toEqual(parsed);
  });

  it('refuses bad values with a typed error naming the field, and unknown fields', () => {
    for (const [value, field] of [
      [{ succeeded: '7 days' }, 'retention.succeeded'],
      [{ failed: -1 }, 'retention.failed'],
      [{ failed: 1.5 }, 'retention.failed'],
      [{ deadLettered: 0 }, 'retention.deadLettered'],
      [{ cancelled: true }, 'retention.cancelled'],
      [{ stale: '1000000000d' }, 'retention.stale'],
      [{ finished: '1d' }, 'retention'],
    ] as const) {
      const e = configError(() => parseRetention(value));
      expect(e.field).toBe(field);
      expect(e.message.startsWith(`${field}:`)).toBe(true);
    }
  });

  it('defineJob checks its retention and names the kind and the field', () => {
    const base = {
      kind: 'demo.keep',
      versions: { current: 'v1' },
      input: z.object({}),
      output: z.object({}),
    } as const;
    expect(defineJob({ ...base, retention: { succeeded: '1d' } }).retention).toEqual({
      succeeded: DAY,
    });
    const e = configError(() => defineJob({ ...base, retention: { failed: 'soon' } }));
    expect(e.field).toBe('retention.failed');
    expect(e.message).toContain('job "demo.keep"');
  });

  it('settings name the nested field (tenant, kind) that is wrong', () => {
    expect(
      configError(() => parseRetentionSettings({ tenants: { acme: { failed: 'x' } } })).field,
    ).toBe('retention.tenants.acme.failed');
    expect(configError(() => parseRetentionSettings({ batchSize: 0 })).field).toBe(
      'retention.batchSize',
    );
    expect(configError(() => parseRetentionSettings({ kinds: { 'Not A Kind': {} } })).field).toBe(
      'retention.kinds.Not A Kind',
    );
  });
});

describe('the retention decision', () => {
  it('names a setting for exactly the states a job rests in by itself, and never for a live one', () => {
    const removable = JOB_STATES.filter((s) => retentionKeyOf(s) !== null);
    expect(removable.sort()).toEqual([...RETENTION_STATES].sort());
    for (const live of ['accepted', 'scheduled', 'queued', 'running', 'needs_review'] as const)
      expect(retentionKeyOf(live)).toBeNull();
  });

  it('precedence: tenant > configured kind > declared kind > configured default > built-in', () => {
    const kinds = {
      'a.declared': { retention: { succeeded: 2 * DAY, failed: null } },
      'a.plain': {},
    };
    const policy = createRetentionPolicy(kinds, {
      default: { succeeded: 3 * DAY },
      kinds: { 'a.configured': { succeeded: 4 * DAY } },
      tenants: { acme: { succeeded: DAY }, globex: { failed: 5 * DAY } },
    });
    expect(policy.keepMs('succeeded', 'a.plain')).toBe(3 * DAY);
    expect(policy.keepMs('succeeded', 'a.declared')).toBe(2 * DAY);
    expect(policy.keepMs('succeeded', 'a.configured')).toBe(4 * DAY);
    expect(policy.keepMs('succeeded', 'a.declared', 'acme')).toBe(DAY);
    // globex overrides only `failed`: its succeeded jobs follow the kind
    expect(policy.keepMs('succeeded', 'a.declared', 'globex')).toBe(2 * DAY);
    expect(policy.keepMs('failed', 'a.declared')).toBeNull();
    expect(policy.keepMs('failed', 'a.declared', 'globex')).toBe(5 * DAY);
    expect(policy.keepMs('stale', 'a.plain')).toBe(DEFAULT_RETENTION.stale);
    expect(policy.keepMs('dead_lettered', 'gone.kind')).toBe(DEFAULT_RETENTION.deadLettered);
    expect(policy.states).toEqual(RETENTION_STATES);
    // a live state is kept forever whatever the rules say
    expect(policy.keepMs('running', 'a.plain', 'acme')).toBeNull();
    expect(policy.keepMs('needs_review', 'a.plain')).toBeNull();
  });
});
