// The one write of the worker's hot path: a job row moved under a fence, with its events (one
// row) and unit checkpoints, as a group across many jobs. Everything an attempt stores — its
// lazy start, its progress, its checkpoints, its outcome, and a start and outcome together for a
// job that finished before anything else was written — is an `AttemptWrite`.
//
// The fence pins the row exactly as the writer last knew it: epoch, last sequence number and
// state (and, for a reclaim, a lapsed lease). Every transition bumps `last_seq` and every new
// attempt bumps `epoch`, so any change made since — a cancel, a reclaim, a requeue — fails the
// fence and nothing of that write lands. Because the row is pinned, the writer knows the sequence
// numbers of its events and the attempt counter before it writes: nothing is read back.
//
// Each dialect writes it its own way (`StorageDialect.writeAttempts`): PostgreSQL runs ONE
// prepared statement per call (a JSON recordset in, CTEs for the events, outbox and units rows,
// each inserted only for rows the UPDATE moved: dialect/postgres/attempt-write.ts); SQLite runs
// cached prepared statements per row inside ONE immediate transaction (dialect/sqlite/); D1 one
// atomic batch in which each statement carries the fence, inserts before the UPDATE
// (dialect/d1/). None holds an interactive transaction open across a round trip.

import type { SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';
import type { AttemptWrite, AttemptWriteResult } from './attempt-types.js';
import { assertWritable } from './write-columns.js';

export type { AttemptFence, AttemptWrite, AttemptWriteResult, UnitWrite } from './attempt-types.js';

export async function writeAttempts(
  database: SluiceDatabase,
  writes: readonly AttemptWrite[],
  now = Date.now(),
): Promise<AttemptWriteResult> {
  if (writes.length === 0) return { applied: [], events: [] };
  for (const w of writes) assertWritable(w);
  return database.dialect.writeAttempts(writes, isoNow(now));
}
