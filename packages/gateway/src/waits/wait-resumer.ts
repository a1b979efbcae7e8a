// The gateway's half of durable waits: signals, token completions and the due sweep, each ONE
// transaction per job (storage `sendSignal`, `completeToken`, `settleCandidates`) in which a
// resumed job is also staged for its runtime (the embedded queue's enqueue, or the outbox row),
// then dispatched after commit exactly like a delayed job that came due. So every runtime that
// can redispatch resumes waits with no code of its own; a crash after the commit leaves the
// outbox row to the reconciler.

import {
  SluiceError,
  type JobRegistry,
  type MessagePointer,
  type RuntimeDispatcher,
  type SignalInput,
  type SignalResult,
  type TokenStatus,
} from '@sluice/contracts';
import {
  completeToken,
  getToken,
  nextWaitDue,
  sendSignal,
  settleCandidates,
  sweepCandidates,
  type CompleteTokenAnswer,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
  type TokenRow,
} from '@sluice/storage/portable';
import { z } from 'zod';
import type { DispatchPath } from '../dispatch/dispatch.js';

/** Waits settled per sweep pass, at most: the next pass (within a second) takes the rest. */
const SWEEP_PAGE = 500;

export interface WaitResumerOptions {
  jobs: JobRegistry;
  database: SluiceDatabase;
  runtime: RuntimeDispatcher<Db>;
  dispatch: DispatchPath;
  /** Events of resumed jobs (watchers see `waiting → queued`). */
  onEvents(events: StoredEvent[]): void;
  /** Which token statuses may complete (the gateway's hooks; only `open`). */
  tokenUsable?: ((status: TokenStatus) => boolean) | undefined;
}

export interface WaitResumer {
  signal(tenantId: string, input: SignalInput): Promise<SignalResult>;
  /** The token's row as of now (undefined: unknown token). */
  token(tokenHash: string): Promise<TokenRow | undefined>;
  /** Whether a token in this status may complete its wait. */
  usable(status: TokenStatus): boolean;
  complete(tokenHash: string, payload: unknown): Promise<CompleteTokenAnswer>;
  /** One sweep pass: settles due and satisfied waits, resumes their jobs. Returns how many. */
  sweep(now?: number): Promise<number>;
  /** When the earliest open wait is due (the scheduler sleeps until then at most). */
  nextDue(): Promise<number | undefined>;
}

/**
 * A BAD_REQUEST whose zod issues name the field (the gateway's error formatter shows them as
 * `data.issues`, like an input that fails its schema).
 */
function invalid(field: string, issues: readonly z.core.$ZodIssue[] | undefined, message: string) {
  const list = (issues ?? [{ code: 'invalid_value', path: [], message }]).map((i) => ({
    ...i,
    path: [field, ...i.path],
  }));
  return Object.assign(
    new SluiceError('BAD_REQUEST', `${field}: ${message}`, { details: { field } }),
    {
      issues: list,
    },
  );
}

export function createWaitResumer(opts: WaitResumerOptions): WaitResumer {
  const { database, dispatch, runtime } = opts;
  const usable = opts.tokenUsable ?? ((status: TokenStatus) => status === 'open');
  const stage = (tx: Db, pointers: MessagePointer[]) =>
    pointers.length > 0 ? dispatch.stage(tx, pointers) : Promise.resolve();

  async function afterCommit(pointers: MessagePointer[], events: StoredEvent[]): Promise<void> {
    opts.onEvents(events);
    if (pointers.length === 0) return;
    if (dispatch.inTransaction) await runtime.dispatch(pointers);
    else await dispatch.afterCommit(pointers, { markQueued: false });
  }

  /** The payload checked against the kind's event schema; the signal refused when it fails. */
  async function checkPayload(tenantId: string, input: SignalInput): Promise<void> {
    const row = await database.db
      .selectFrom('jobs')
      .select('kind')
      .where('id', '=', input.id)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) throw new SluiceError('NOT_FOUND', 'job not found');
    const schema = opts.jobs[row.kind]?.events?.[input.name];
    if (!schema)
      throw invalid('name', undefined, `job kind ${row.kind} declares no event "${input.name}"`);
    const parsed = z.safeParse(schema, input.payload);
    if (!parsed.success)
      throw invalid('payload', parsed.error.issues, 'does not match the event schema');
  }

  return {
    async signal(tenantId, input) {
      await checkPayload(tenantId, input);
      const answer = await database.transaction(async (tx) => {
        const a = await sendSignal(tx, {
          tenantId,
          jobId: input.id,
          name: input.name,
          payload: input.payload,
          signalId: input.signalId,
        });
        if (a.kind === 'stored' && a.resumed) await stage(tx, [a.resumed.pointer]);
        return a;
      });
      switch (answer.kind) {
        case 'not_found':
          throw new SluiceError('NOT_FOUND', 'job not found');
        case 'ended':
          throw new SluiceError(
            'CONFLICT',
            `the job ended (${answer.state}): nothing waits for signals`,
            {
              details: { state: answer.state },
            },
          );
        case 'stored':
          if (answer.resumed) await afterCommit([answer.resumed.pointer], [answer.resumed.event]);
          return {
            id: input.id,
            name: input.name,
            signalId: answer.signalId,
            isDuplicate: answer.isDuplicate,
            delivered: answer.delivered,
          };
      }
    },

    token: (tokenHash) => getToken(database.db, tokenHash),
    usable,

    async complete(tokenHash, payload) {
      const row = await getToken(database.db, tokenHash);
      if (row && usable(row.status)) {
        const kind = await database.db
          .selectFrom('jobs')
          .select('kind')
          .where('id', '=', row.jobId)
          .executeTakeFirst();
        const schema = kind ? opts.jobs[kind.kind]?.events?.[row.event] : undefined;
        const parsed = schema ? z.safeParse(schema, payload) : undefined;
        if (parsed && !parsed.success)
          throw invalid('payload', parsed.error.issues, 'does not match the event schema');
      }
      const answer = await database.transaction(async (tx) => {
        const a = await completeToken(tx, tokenHash, payload, Date.now(), usable);
        if (a.kind === 'completed' && a.signal.resumed) await stage(tx, [a.signal.resumed.pointer]);
        return a;
      });
      if (answer.kind === 'completed' && answer.signal.resumed)
        await afterCommit([answer.signal.resumed.pointer], [answer.signal.resumed.event]);
      return answer;
    },

    async sweep(now = Date.now()) {
      const candidates = await sweepCandidates(database.db, now, SWEEP_PAGE);
      if (candidates.length === 0) return 0;
      const r = await settleCandidates(database, candidates, stage, now);
      await afterCommit(r.resumed, r.events);
      return r.resumed.length;
    },

    nextDue: () => nextWaitDue(database.db),
  };
}
