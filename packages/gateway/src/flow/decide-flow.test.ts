// The flow decision as a table: each flow and mode against the key's state. Catches a window that
// outlives `maxDelayMs`, a leading window that folds after it closed, a singleton that runs next
// to a live or held job, and a batch that takes an input past `maxSize` or into a job already due.
import type { FlowPlan } from '@sluice/contracts';
import type { FlowKeySlot } from '@sluice/storage/portable';
import { describe, expect, it } from 'vitest';
import { decideFlow } from './decide-flow.js';

const NOW = 1_000_000;
const free: FlowKeySlot = { jobId: null, openedAt: null, closesAt: null, size: 0, job: undefined };
const withJob = (state: string, extra: Partial<FlowKeySlot> = {}): FlowKeySlot => ({
  jobId: 'v1-j',
  openedAt: NOW - 1_000,
  closesAt: null,
  size: 1,
  job: { id: 'v1-j', state: state as never, runAfter: null },
  ...extra,
});

describe('debounce', () => {
  const trailing: FlowPlan = {
    flow: 'debounce',
    key: '',
    mode: 'trailing',
    delayMs: 300,
    maxDelayMs: 1_200,
  };
  const leading: FlowPlan = { ...trailing, mode: 'leading' };

  it('trailing: opens a window due after the quiet time; folds while its job waits', () => {
    expect(decideFlow(trailing, free, NOW)).toEqual({
      action: 'open',
      start: 'scheduled',
      dueAt: NOW + 300,
      window: { openedAt: NOW, closesAt: null, size: 1 },
    });
    expect(decideFlow(trailing, withJob('scheduled', { openedAt: NOW - 100 }), NOW)).toEqual({
      action: 'fold-trailing',
      dueAt: NOW + 300,
    });
    // Never later than maxDelayMs after the window opened.
    expect(decideFlow(trailing, withJob('scheduled', { openedAt: NOW - 1_100 }), NOW)).toEqual({
      action: 'fold-trailing',
      dueAt: NOW + 100,
    });
    // Its job already moved on: a new window.
    for (const state of ['queued', 'running', 'succeeded', 'cancelled'])
      expect(decideFlow(trailing, withJob(state), NOW)).toMatchObject({ action: 'open' });
  });

  it('leading: runs at once; folds until the quiet window closes', () => {
    expect(decideFlow(leading, free, NOW)).toEqual({
      action: 'open',
      start: 'queued',
      window: { openedAt: NOW, closesAt: NOW + 300, size: 1 },
    });
    expect(
      decideFlow(leading, withJob('running', { closesAt: NOW + 1, openedAt: NOW - 100 }), NOW),
    ).toEqual({
      action: 'fold-leading',
      closesAt: NOW + 300,
    });
    expect(
      decideFlow(leading, withJob('running', { closesAt: NOW + 1, openedAt: NOW - 1_000 }), NOW),
    ).toEqual({ action: 'fold-leading', closesAt: NOW + 200 });
    expect(decideFlow(leading, withJob('succeeded', { closesAt: NOW }), NOW)).toMatchObject({
      action: 'open',
      start: 'queued',
    });
  });
});

describe('singleton', () => {
  const plan = (mode: 'skip' | 'queue' | 'cancel-older'): FlowPlan => ({
    flow: 'singleton',
    key: 'k',
    mode,
  });

  it('a live job (any state but a final one) keeps the key', () => {
    for (const state of ['scheduled', 'queued', 'running', 'needs_review', 'dead_lettered']) {
      expect(decideFlow(plan('skip'), withJob(state), NOW)).toEqual({ action: 'skip' });
      expect(decideFlow(plan('queue'), withJob(state), NOW)).toMatchObject({ start: 'held' });
      expect(decideFlow(plan('cancel-older'), withJob(state), NOW)).toEqual({
        action: 'cancel-older',
      });
    }
    for (const state of ['succeeded', 'failed', 'cancelled', 'stale']) {
      for (const mode of ['skip', 'queue', 'cancel-older'] as const)
        expect(decideFlow(plan(mode), withJob(state), NOW)).toMatchObject({ start: 'queued' });
    }
  });

  it('held jobs keep the key after its job ended, until the release', () => {
    const held = { held: ['v1-h'] };
    expect(decideFlow(plan('skip'), withJob('succeeded'), NOW, held)).toEqual({
      action: 'skip',
      heldId: 'v1-h',
    });
    expect(decideFlow(plan('queue'), free, NOW, held)).toMatchObject({ start: 'held' });
    expect(decideFlow(plan('cancel-older'), free, NOW, held)).toEqual({ action: 'cancel-older' });
  });
});

describe('batch', () => {
  const plan: FlowPlan = { flow: 'batch', key: '', maxSize: 3, maxWaitMs: 200 };

  it('appends while its job waits and has room; the input that fills it makes it due', () => {
    expect(decideFlow(plan, free, NOW)).toEqual({
      action: 'open',
      start: 'scheduled',
      dueAt: NOW + 200,
      window: { openedAt: NOW, closesAt: null, size: 1 },
    });
    expect(decideFlow(plan, withJob('scheduled', { size: 1 }), NOW)).toEqual({
      action: 'append',
      dueAt: undefined,
      size: 2,
    });
    expect(decideFlow(plan, withJob('scheduled', { size: 2 }), NOW)).toEqual({
      action: 'append',
      dueAt: NOW,
      size: 3,
    });
    expect(decideFlow(plan, withJob('scheduled', { size: 3 }), NOW)).toMatchObject({
      action: 'open',
    });
    expect(decideFlow(plan, withJob('queued', { size: 1 }), NOW)).toMatchObject({
      action: 'open',
    });
  });

  it('a batch of one is due at once', () => {
    expect(decideFlow({ ...plan, maxSize: 1 }, free, NOW)).toMatchObject({ dueAt: NOW });
  });
});
