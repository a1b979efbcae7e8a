// What the wait cases need of a gateway, built from the same storage calls and the harness's
// dispatch half (the runtime's own): a signal sender, and a pump that does what the gateway's
// due-job scheduler does each pass — children due now are queued and dispatched, due waits and
// ended children are settled and their jobs resumed. Stage-in-transaction where the runtime
// dispatches there, dispatch after commit otherwise, exactly like the gateway's dispatch path.

import type { MessagePointer } from '@sluice/contracts';
import {
  completeToken,
  dueScheduledJobs,
  sendSignal,
  settleCandidates,
  sweepCandidates,
  transitionJobs,
  type Db,
} from '@sluice/storage';
import { TENANT, type ConformanceHarness } from './conformance-kit.js';

async function stageIn(h: ConformanceHarness, tx: Db, pointers: MessagePointer[]): Promise<void> {
  if (h.capabilities.dispatchesInTransaction && pointers.length > 0) await h.dispatch(pointers, tx);
}

async function afterCommit(h: ConformanceHarness, pointers: MessagePointer[]): Promise<void> {
  if (!h.capabilities.dispatchesInTransaction && pointers.length > 0) await h.dispatch(pointers);
}

/** `jobs.signal` as the gateway does it: one transaction, staged resume, dispatch after commit. */
export async function signalJob(
  h: ConformanceHarness,
  jobId: string,
  name: string,
  payload: unknown,
  db = h.database,
) {
  const answer = await db.transaction(async (tx) => {
    const a = await sendSignal(tx, { tenantId: TENANT, jobId, name, payload });
    if (a.kind === 'stored' && a.resumed) await stageIn(h, tx, [a.resumed.pointer]);
    return a;
  });
  if (answer.kind === 'stored' && answer.resumed) await afterCommit(h, [answer.resumed.pointer]);
  return answer;
}

/** One pass of the gateway's scheduler over children due now and waits. */
export async function pumpOnce(h: ConformanceHarness, now = Date.now()): Promise<number> {
  const db = h.database.db;
  const due = await dueScheduledJobs(db, now, 500);
  const pointers: MessagePointer[] = [];
  if (due.length > 0) {
    await h.database.transaction(async (tx) => {
      const moved = await transitionJobs(
        tx,
        due.map((j) => ({ id: j.id, event: 'due' as const })),
        now,
      );
      for (const [i, r] of moved.entries()) {
        const j = due[i];
        if (r.ok && j)
          pointers.push({ jobId: j.id, kind: j.kind, version: j.version, tenantId: j.tenantId });
      }
      await stageIn(h, tx, pointers);
    });
    await afterCommit(h, pointers);
  }
  const candidates = await sweepCandidates(db, now, 500);
  const r = await settleCandidates(h.database, candidates, (tx, ps) => stageIn(h, tx, ps), now);
  await afterCommit(h, r.resumed);
  return pointers.length + r.resumed.length;
}

/** Runs `pumpOnce` every `everyMs` until stopped (the gateway's scheduler loop). */
export function startPump(h: ConformanceHarness, everyMs = 50): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await pumpOnce(h).catch(() => {});
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** sha256 hex, as the gateway stores tokens. */
async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `POST /v1/tokens/<token>` as the gateway does it (one transaction, staged resume). */
export async function completeTokenAsGateway(
  h: ConformanceHarness,
  token: string,
  payload: unknown,
): Promise<'completed' | 'refused' | 'not_found' | 'job_ended'> {
  const hash = await sha256(token);
  const answer = await h.database.transaction(async (tx) => {
    const a = await completeToken(tx, hash, payload);
    if (a.kind === 'completed' && a.signal.resumed)
      await stageIn(h, tx, [a.signal.resumed.pointer]);
    return a;
  });
  if (answer.kind === 'completed' && answer.signal.resumed)
    await afterCommit(h, [answer.signal.resumed.pointer]);
  return answer.kind;
}
