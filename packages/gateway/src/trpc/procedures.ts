// Base procedures in one file, with named middleware (a stack trace names the check that failed):
//
//   publicProcedure  maps every SluiceError a resolver throws to its tRPC code (errors.ts) and
//                    refuses unstorable or too deeply nested input (input-hygiene.ts)
//   scoped(scope)    admits the call through the gatekeeper — key, the scope declared here next to
//                    the procedure, rate limits — for HTTP, SSE and WebSocket alike; the tenant
//                    never comes from input. A subscription also takes a stream slot and ends
//                    when its key is revoked or expires.
//
//   get: p.scoped('jobs:read').input(GetInput).query(({ ctx }) => … ctx.tenantId …)

import { SluiceError, type ApiKeyScope } from '@sluice/contracts';
import type { Gatekeeper, OpenStream } from '../auth/gatekeeper.js';
import { toTRPCError } from './errors.js';
import { t } from './init.js';
import { inputProblem } from './input-hygiene.js';

/** Ends a subscription's iterable when its stream slot is ended (revocation, expiry). */
async function* endWith<T>(iterable: AsyncIterable<T>, stream: OpenStream): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  const ended = new Promise<never>((_, reject) => {
    const onEnd = () => reject(toTRPCError(stream.ended.reason));
    if (stream.ended.aborted) onEnd();
    else stream.ended.addEventListener('abort', onEnd, { once: true });
  });
  ended.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), ended]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    stream.release();
    // Not awaited: the inner generator may be parked; it also sees the ended signal (ctx).
    void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/**
 * A gateway that cannot honour a procedure here (the Workers gateway: no interactive transaction
 * for requeue/approve, no scheduler for schedules) names it; the call is refused with this typed
 * error after admission, before it reads or writes anything.
 */
export type RefuseProcedure = (path: string) => SluiceError | undefined;

export function createProcedures(
  gate: Gatekeeper,
  maxInputDepth: number,
  refuse?: RefuseProcedure,
  /** A driver error of a database that cannot answer now: UNAVAILABLE, not internal. */
  unavailable?: (error: unknown) => boolean,
) {
  const publicProcedure = t.procedure
    .use(async function mapErrors({ next }) {
      const result = await next();
      if (!result.ok) throw toTRPCError(result.error, unavailable);
      return result;
    })
    .use(async function inputHygiene({ getRawInput, next }) {
      const problem = inputProblem(await getRawInput(), maxInputDepth);
      if (problem) throw new SluiceError('BAD_REQUEST', problem);
      return next();
    });

  const admittedProcedure = publicProcedure.use(async function admit({
    ctx,
    meta,
    type,
    path,
    next,
  }) {
    // Fail closed: a procedure that declares no scope is callable by nobody.
    const scope = meta?.scope;
    if (!scope) throw new SluiceError('FORBIDDEN', 'this procedure declares no scope');
    const transport = ctx.socket ? 'ws' : 'http';
    const admitted = await gate.admit({
      apiKey: ctx.apiKey,
      address: ctx.address,
      scope,
      call: { type, transport },
      request: ctx.request,
    });
    if (!admitted.ok) throw admitted.error;
    const refusal = refuse?.(path);
    if (refusal) throw refusal;
    const { tenantId, keyId, scopes } = admitted.principal;
    if (type !== 'subscription') {
      return next({ ctx: { tenantId, keyId, scopes, streamEnded: undefined } });
    }
    const stream = gate.openStream(admitted.principal, transport, ctx.socket ?? undefined);
    if (stream instanceof SluiceError) throw stream;
    try {
      const result = await next({ ctx: { tenantId, keyId, scopes, streamEnded: stream.ended } });
      if (!result.ok) {
        stream.release();
        return result;
      }
      return { ...result, data: endWith(result.data as AsyncIterable<unknown>, stream) };
    } catch (error) {
      stream.release();
      throw error;
    }
  });

  return {
    router: t.router,
    publicProcedure,
    /** A procedure callable with a key that has `scope` (or `admin`). */
    scoped: (scope: ApiKeyScope) => admittedProcedure.meta({ scope }),
  };
}

export type Procedures = ReturnType<typeof createProcedures>;

/** The resolver's signal, also aborted when the gatekeeper ends the stream. */
export function streamSignal(
  signal: AbortSignal | undefined,
  ended: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!ended) return signal;
  return signal ? AbortSignal.any([signal, ended]) : ended;
}
