// The flat column values of an `AttemptWrite`, shared by both dialects' statements, and the
// checks and grouping every dialect applies before writing.

import { isFinalState } from '@sluice/contracts';
import { toJson } from '../json.js';
import { eventRowColumns } from '../repos/event-rows.js';
import type { AttemptWrite } from './attempt-types.js';

/** Flattened column values, shared by both dialects' statements. */
export interface WriteColumns {
  id: string;
  ep: number;
  seq0: number;
  fromState: string;
  leaseCheck: boolean;
  toState: string;
  newEp: number;
  newAtt: number;
  aid: string | null;
  lease: string | null;
  owner: string | null;
  hasOut: boolean;
  out: string | null;
  hasErr: boolean;
  err: string | null;
  hasRsn: boolean;
  rsn: string | null;
  hasRa: boolean;
  ra: string | null;
  fin: boolean;
  n: number;
  tenant: string;
  kind: string;
  etype: string | null;
  payload: string | null;
  seqEnd: number | null;
  outboxDue: string | null;
  wait: string | null;
}

/** A boolean as the 0/1 SQLite and D1 bind. */
export const bit = (b: boolean): number => (b ? 1 : 0);

export function assertWritable(w: AttemptWrite): void {
  w.events.forEach((e, i) => {
    if (e.seq !== w.fence.lastSeq + 1 + i || e.jobId !== w.id)
      throw new Error(
        `event ${i} of ${w.id} has seq ${e.seq}, expected ${w.fence.lastSeq + 1 + i}`,
      );
  });
}

/** Splits writes into rounds in which each job appears once (one UPDATE may touch a row once). */
export function rounds<T extends { id: string }>(writes: readonly T[]): number[][] {
  const out: number[][] = [];
  const seen: Set<string>[] = [];
  writes.forEach((w, i) => {
    let r = 0;
    while (seen[r]?.has(w.id)) r++;
    (seen[r] ??= new Set()).add(w.id);
    (out[r] ??= []).push(i);
  });
  return out;
}

export function toColumns(w: AttemptWrite): WriteColumns {
  const row =
    w.events.length > 0 ? eventRowColumns({ ...w, jobId: w.id, events: w.events }) : undefined;
  return {
    id: w.id,
    ep: w.fence.epoch,
    seq0: w.fence.lastSeq,
    fromState: w.fence.state,
    leaseCheck: w.fence.leaseLapsed === true,
    toState: w.state,
    newEp: w.epoch,
    newAtt: w.attempts,
    aid: w.attemptId,
    lease: w.leaseUntil,
    owner: w.leaseOwner,
    hasOut: w.output !== undefined,
    out: w.output === undefined ? null : toJson(w.output),
    hasErr: w.error !== undefined,
    err: w.error == null ? null : toJson(w.error),
    hasRsn: w.reason !== undefined,
    rsn: w.reason ?? null,
    hasRa: w.runAfter !== undefined,
    ra: w.runAfter ?? null,
    fin: isFinalState(w.state),
    n: w.events.length,
    tenant: w.tenantId,
    kind: w.kind,
    etype: row?.type ?? null,
    payload: row?.payload ?? null,
    seqEnd: row?.seqEnd ?? null,
    outboxDue: w.outboxDueAt ?? null,
    wait: w.waiting ? toJson(w.waiting) : null,
  };
}
