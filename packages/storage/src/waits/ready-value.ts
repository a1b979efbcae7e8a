// Whether an open wait's end has come, read inside the transaction that holds its job's lock:
// the oldest unconsumed signal of its event (consumed here), its children's ends, or its due
// time. Shared by the suspend side (register-wait.ts) and the sweep (due-waits.ts), so both
// decide a wait's value the same way.

import type { WaitKind } from '@sluice/contracts';
import type { Db } from '../database.js';
import { fromJson } from '../json.js';
import { childOutcomes, childrenSettled } from './children-outcomes.js';

export interface WaitSpec {
  jobId: string;
  waitKey: string;
  kind: WaitKind;
  event: string | null;
  dueAt: string | null;
  children: readonly string[] | null;
  mode: 'all' | 'any' | null;
}

export type Ready = { status: 'resolved' | 'timed_out'; value: unknown };

export async function readyValue(tx: Db, w: WaitSpec, now: number): Promise<Ready | undefined> {
  const due = w.dueAt !== null && Date.parse(w.dueAt) <= now;
  switch (w.kind) {
    case 'event': {
      const signal = await tx
        .selectFrom('job_signals')
        .select(['signal_id', 'payload'])
        .where('job_id', '=', w.jobId)
        .where('name', '=', w.event ?? '')
        .where('consumed_by', 'is', null)
        .orderBy('created_at')
        .orderBy('signal_id')
        .executeTakeFirst();
      if (signal) {
        await tx
          .updateTable('job_signals')
          .set({ consumed_by: w.waitKey })
          .where('job_id', '=', w.jobId)
          .where('signal_id', '=', signal.signal_id)
          .execute();
        return {
          status: 'resolved',
          value: signal.payload === null ? null : fromJson(signal.payload),
        };
      }
      return due ? { status: 'timed_out', value: null } : undefined;
    }
    case 'sleep':
      return due ? { status: 'resolved', value: null } : undefined;
    case 'children': {
      const outcomes = await childOutcomes(tx, w.children ?? []);
      const settled = childrenSettled(outcomes, w.mode ?? 'all');
      if (settled) return { status: 'resolved', value: settled };
      return due ? { status: 'timed_out', value: outcomes } : undefined;
    }
  }
}
