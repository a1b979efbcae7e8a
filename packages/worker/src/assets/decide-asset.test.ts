// Catches an asset decision that rewrites a published key, deletes what is not its own, or sweeps
// a live attempt's staging: every answer of every conditional step, and every sweep case.
import { stagingKey } from '@sluice/storage';
import { describe, expect, it } from 'vitest';
import {
  decideAfterPublish,
  decideClaim,
  decidePublish,
  decideStagingSweep,
  parseStagingKey,
  type StagingFacts,
} from './decide-asset.js';

describe('asset decisions', () => {
  it('after the ownership row: stage when owned, reuse when published, abort when fenced', () => {
    expect(decideClaim('owned')).toBe('stage');
    expect(decideClaim('published')).toBe('reuse');
    expect(decideClaim('fenced')).toBe('abort');
  });

  it('in the publishing transaction: only "ok" publishes; otherwise delete own staging only', () => {
    expect(decidePublish('ok')).toEqual({ kind: 'publish' });
    expect(decidePublish('published')).toEqual({ kind: 'reuse', deleteOwnStaging: true });
    expect(decidePublish('not_owner')).toEqual({ kind: 'abort', deleteOwnStaging: true });
  });

  it('after write-if-absent: insert what was staged, or adopt the bytes already there', () => {
    expect(decideAfterPublish('published')).toEqual({ kind: 'insert', deleteOwnStaging: false });
    expect(decideAfterPublish('exists')).toEqual({ kind: 'adopt', deleteOwnStaging: true });
  });

  it('parses exactly the staging keys blob-keys builds', () => {
    const key = stagingKey('acme', 'v1-abcdefghijklmnopqrstuvwxyz', 'att1', 'tok1');
    expect(parseStagingKey(key)).toEqual({
      tenantId: 'acme',
      jobId: 'v1-abcdefghijklmnopqrstuvwxyz',
      attemptId: 'att1',
      token: 'tok1',
    });
    for (const bad of [
      't/acme/j/v1-x/assets/u/name',
      'staging/t/acme/j/v1-x/att1',
      'staging/t/acme/j/v1-x/att1/tok/extra',
      'other/t/acme/j/v1-x/att1/tok1',
      'staging/x/acme/j/v1-x/att1/tok1',
      'staging/t/acme/x/v1-x/att1/tok1',
      'staging/t//j/v1-x/att1/tok1',
      'staging/t/acme/j//att1/tok1',
      'staging/t/acme/j/v1-x//tok1',
      'staging/t/acme/j/v1-x/att1/',
    ]) {
      expect(parseStagingKey(bad), bad).toBeUndefined();
    }
  });

  describe('staging sweep', () => {
    const key = 'staging/t/acme/j/v1-x/a1/t1';
    const facts = (f: Partial<StagingFacts>): StagingFacts => ({
      stagingKey: key,
      attemptId: 'a1',
      job: { state: 'running', attemptId: 'a1' },
      owned: new Set(),
      ...f,
    });
    it.each([
      ['the live attempt', {}, { action: 'keep', why: 'live_attempt' }],
      [
        'a key a live ownership row names, even for another attempt',
        { job: { state: 'running', attemptId: 'a2' }, owned: new Set([key]) },
        { action: 'keep', why: 'owned' },
      ],
      ['a job that is gone', { job: undefined }, { action: 'delete', why: 'job_gone' }],
      [
        'a job no attempt runs',
        { job: { state: 'succeeded', attemptId: null } },
        { action: 'delete', why: 'job_not_running' },
      ],
      [
        'a dead attempt of a running job',
        { job: { state: 'running', attemptId: 'a2' }, owned: new Set(['other']) },
        { action: 'delete', why: 'attempt_dead' },
      ],
    ] as const)('%s', (_name, f, verdict) => {
      expect(decideStagingSweep(facts(f as Partial<StagingFacts>))).toEqual(verdict);
    });
  });
});
