// The flow plan of a submit: the submit's fields over the definition's, complete or refused with
// the field named. Catches a plan that silently drops an option (a submit that asked for a batch
// on a kind whose handler takes one input, two flows at once, a delay a debounce would override).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from './define-job.js';
import { isSluiceError, type SluiceError } from './errors.js';
import { resolveFlow, type FlowDeclarations } from './flow-control.js';

function refusal(fn: () => unknown): { code: string; field: unknown } {
  try {
    fn();
  } catch (error) {
    if (!isSluiceError(error)) throw error;
    return { code: error.code, field: (error as SluiceError).details?.field };
  }
  throw new Error('expected a refusal');
}

const kind = 'demo.flow';

describe('resolveFlow', () => {
  it('no flow declared or asked: no plan', () => {
    expect(resolveFlow(kind, {}, {})).toBeUndefined();
  });

  it('merges the submit over the declaration, with the documented defaults', () => {
    const declared: FlowDeclarations = { debounce: { delayMs: 500, key: 'all' } };
    expect(resolveFlow(kind, declared, {})).toEqual({
      flow: 'debounce',
      key: 'all',
      mode: 'trailing',
      delayMs: 500,
      maxDelayMs: 24 * 60 * 60 * 1000,
    });
    expect(
      resolveFlow(kind, declared, { debounce: { key: 'doc-1', mode: 'leading', maxDelayMs: 900 } }),
    ).toEqual({ flow: 'debounce', key: 'doc-1', mode: 'leading', delayMs: 500, maxDelayMs: 900 });
    expect(resolveFlow(kind, {}, { singleton: {} })).toEqual({
      flow: 'singleton',
      key: '',
      mode: 'skip',
    });
    expect(
      resolveFlow(kind, { batch: { maxSize: 10, maxWaitMs: 100 } }, { batch: { key: 'x' } }),
    ).toEqual({ flow: 'batch', key: 'x', maxSize: 10, maxWaitMs: 100 });
  });

  it('a submit refines the declared flow but never swaps it for another', () => {
    const declared: FlowDeclarations = { singleton: { mode: 'queue' } };
    expect(resolveFlow(kind, declared, { singleton: { key: 'a' } })).toEqual({
      flow: 'singleton',
      key: 'a',
      mode: 'queue',
    });
    // A debounce on a singleton kind would let a second job of its key run.
    expect(refusal(() => resolveFlow(kind, declared, { debounce: { delayMs: 5 } }))).toEqual({
      code: 'BAD_REQUEST',
      field: 'debounce',
    });
    // A batch kind's runs take arrays: a submit cannot make it run one input.
    const batch: FlowDeclarations = { batch: { maxSize: 2, maxWaitMs: 9 } };
    expect(refusal(() => resolveFlow(kind, batch, { singleton: {} }))).toEqual({
      code: 'BAD_REQUEST',
      field: 'singleton',
    });
  });

  it('refuses what it cannot honour, naming the field', () => {
    const cases: [FlowDeclarations, Parameters<typeof resolveFlow>[2], object, string][] = [
      [{}, { debounce: { delayMs: 1 }, singleton: {} }, {}, 'singleton'],
      [{}, { batch: { maxSize: 2, maxWaitMs: 10 } }, {}, 'batch'],
      [{}, { debounce: {} }, {}, 'debounce.delayMs'],
      [{}, { debounce: { delayMs: 100, maxDelayMs: 50 } }, {}, 'debounce.maxDelayMs'],
      [{}, { debounce: { delayMs: 100 } }, { delayMs: 5 }, 'delayMs'],
      [{}, { debounce: { delayMs: 100 } }, { runAt: '2030-01-01T00:00:00Z' }, 'runAt'],
      [{}, { debounce: { delayMs: 100 } }, { idempotencyKey: 'k' }, 'idempotencyKey'],
      [{ batch: { maxSize: 2, maxWaitMs: 9 } }, {}, { idempotencyKey: 'k' }, 'idempotencyKey'],
    ];
    for (const [declared, request, companions, field] of cases) {
      expect(refusal(() => resolveFlow(kind, declared, request, companions))).toEqual({
        code: 'BAD_REQUEST',
        field,
      });
    }
    // A singleton takes a key and a delay: its submit still makes a job of its own.
    expect(
      resolveFlow(kind, {}, { singleton: {} }, { idempotencyKey: 'k', delayMs: 5 }),
    ).toMatchObject({ flow: 'singleton' });
  });
});

describe('defineJob flow declarations', () => {
  const base = {
    kind,
    versions: { current: 'v1' },
    input: z.object({ n: z.number() }),
    output: z.object({ n: z.number() }),
  } as const;

  it('keeps a declaration, frozen', () => {
    const job = defineJob({ ...base, batch: { maxSize: 5, maxWaitMs: 100 } });
    expect(job.batch).toEqual({ maxSize: 5, maxWaitMs: 100 });
    expect(Object.isFrozen(job.batch)).toBe(true);
  });

  it('refuses a bad declaration with INVALID_CONFIG naming the field', () => {
    expect(refusal(() => defineJob({ ...base, debounce: { delayMs: -1 } }))).toEqual({
      code: 'INVALID_CONFIG',
      field: 'debounce.delayMs',
    });
    expect(
      refusal(() => defineJob({ ...base, debounce: { delayMs: 1 }, singleton: { mode: 'skip' } })),
    ).toEqual({ code: 'INVALID_CONFIG', field: 'singleton' });
    // A batch kind's runs take arrays: its wait and size must be declared, not left to submits.
    expect(refusal(() => defineJob({ ...base, batch: { maxSize: 5 } }))).toEqual({
      code: 'INVALID_CONFIG',
      field: 'batch.maxWaitMs',
    });
    expect(
      refusal(() => defineJob({ ...base, singleton: { mode: 'sometimes' as never, key: 'k' } })),
    ).toEqual({ code: 'INVALID_CONFIG', field: 'singleton.mode' });
  });
});
