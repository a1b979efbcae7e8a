import type { BatchOptions, DebounceOptions, ErrorCode, SingletonOptions } from '@sluice/contracts';
import { expectTypeOf, it } from 'vitest';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './index.js';
import type { TestJobs } from '../testing/fixture.js';

type In = inferRouterInputs<AppRouter<TestJobs>>;
type Out = inferRouterOutputs<AppRouter<TestJobs>>;

it('types jobs.submit from the registry', () => {
  expectTypeOf<In['jobs']['submit']>().toEqualTypeOf<
    | {
        kind: 'demo.echo';
        input: { text: string };
        idempotencyKey?: string | undefined;
        fileIds?: string[] | undefined;
        runAt?: string | undefined;
        delayMs?: number | undefined;
        priority?: number | undefined;
        hold?: boolean | undefined;
        debounce?: DebounceOptions | undefined;
        singleton?: SingletonOptions | undefined;
        batch?: BatchOptions | undefined;
        tags?: string[] | undefined;
        metadata?: Record<string, unknown> | undefined;
      }
    | {
        kind: 'demo.approve';
        input: { text: string };
        idempotencyKey?: string | undefined;
        fileIds?: string[] | undefined;
        runAt?: string | undefined;
        delayMs?: number | undefined;
        priority?: number | undefined;
        hold?: boolean | undefined;
        debounce?: DebounceOptions | undefined;
        singleton?: SingletonOptions | undefined;
        batch?: BatchOptions | undefined;
        tags?: string[] | undefined;
        metadata?: Record<string, unknown> | undefined;
      }
    | {
        kind: 'demo.copy';
        input: { text: string };
        idempotencyKey?: string | undefined;
        fileIds?: string[] | undefined;
        runAt?: string | undefined;
        delayMs?: number | undefined;
        priority?: number | undefined;
        hold?: boolean | undefined;
        debounce?: DebounceOptions | undefined;
        singleton?: SingletonOptions | undefined;
        batch?: BatchOptions | undefined;
        tags?: string[] | undefined;
        metadata?: Record<string, unknown> | undefined;
      }
    | {
        kind: 'demo.rollout';
        input: { n: number };
        idempotencyKey?: string | undefined;
        fileIds?: string[] | undefined;
        runAt?: string | undefined;
        delayMs?: number | undefined;
        priority?: number | undefined;
        hold?: boolean | undefined;
        debounce?: DebounceOptions | undefined;
        singleton?: SingletonOptions | undefined;
        batch?: BatchOptions | undefined;
        tags?: string[] | undefined;
        metadata?: Record<string, unknown> | undefined;
      }
  >();
  expectTypeOf<Out['jobs']['submit']>().toEqualTypeOf<{
    id: string;
    state: Out['jobs']['get']['state'];
    isDuplicate: boolean;
    debounced?: boolean | undefined;
    skipped?: boolean | undefined;
    batchIndex?: number | undefined;
  }>();
});

type ErrorShape = AppRouter<TestJobs>['_def']['_config']['$types']['errorShape'];

it('types the error data with sluiceCode and issues', () => {
  expectTypeOf<ErrorShape['data']['sluiceCode']>().toEqualTypeOf<ErrorCode>();
});

it('refuses a wrong kind or input at compile time', () => {
  const submit = (_input: In['jobs']['submit']) => {};
  // @ts-expect-error unknown kind
  submit({ kind: 'demo.nope', input: { text: 'a' } });
  // @ts-expect-error wrong input for the kind
  submit({ kind: 'demo.rollout', input: { text: 'a' } });
  // @ts-expect-error no tenant in the input
  submit({ kind: 'demo.echo', input: { text: 'a' }, tenantId: 'globex' });
  submit({ kind: 'demo.echo', input: { text: 'a' }, idempotencyKey: 'k' });
});
