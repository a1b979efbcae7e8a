// What a format-2 pointer carries besides the job's identity: the row as the accept transaction
// wrote it, so a worker can admit the job's FIRST delivery without reading the row back. Every
// field is one the admission decision or the attempt reads (the storage `JobSnapshot` minus what
// a freshly queued job cannot have: a lease, an attempt id, a due time, a limit wait, files).
//
// Why this is safe without the read: the attempt's first durable write is fenced on exactly the
// epoch, last sequence number and state given here (and on the row's kind and tenant). Anything
// that happened to the job since the snapshot was taken (a cancel, a start elsewhere, a requeue)
// moved at least one of them, so that write is refused, the attempt is aborted, and no provider
// call can have gone out: the guard writes its ledger row (the first write) before it sends.
//
// The input travels as its JSON text, and only when that is at most `MAX_POINTER_INPUT_BYTES`:
// a larger input stays in the row and the worker reads the row as it does for old pointers.

import { z } from 'zod';
import { SluiceError } from './errors.js';
import { utf8LengthWithin } from './utf8-length.js';

/** The largest input (its JSON text, UTF-8 bytes) a pointer carries; larger ones stay in the row. */
export const MAX_POINTER_INPUT_BYTES = 8 * 1024;
/** The wire format of a pointer that carries a snapshot (`format` field); old pointers have none. */
export const POINTER_FORMAT = '2';

const Count = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

export const PointerSnapshot = z
  .object({
    /** The row's epoch when it was queued (the first attempt runs at `epoch + 1`). */
    epoch: Count,
    /** The row's `last_seq`: with `epoch` and the `queued` state, the fence of the first write. */
    lastSeq: Count,
    attempts: Count,
    maxAttempts: Count.min(1),
    /** When the job was accepted (dispatch→start is measured from it). */
    createdAt: z.string().datetime({ offset: true }),
    traceContext: z.string().max(200).optional(),
    apiKeyId: z.string().max(100).optional(),
    /** The input as JSON text; absent when it was larger than `MAX_POINTER_INPUT_BYTES`. */
    inputJson: z.string().optional(),
  })
  .strict()
  .refine((s) => s.inputJson === undefined || fitsInPointer(s.inputJson), {
    message: `the input must be at most ${MAX_POINTER_INPUT_BYTES} bytes`,
    path: ['inputJson'],
  });
export type PointerSnapshot = z.infer<typeof PointerSnapshot>;

function fitsInPointer(inputJson: string): boolean {
  return utf8LengthWithin([inputJson], MAX_POINTER_INPUT_BYTES) <= MAX_POINTER_INPUT_BYTES;
}

/**
 * The snapshot of a job the accept wrote, with its input when it is small enough to carry. The
 * input comes as the JSON text the row was written with, so an accept serializes it once.
 */
export function snapshotWithInput(
  row: Omit<PointerSnapshot, 'inputJson'>,
  inputJson: string,
): PointerSnapshot {
  return fitsInPointer(inputJson) ? { ...row, inputJson } : { ...row };
}

const NUMBERS = ['epoch', 'lastSeq', 'attempts', 'maxAttempts'] as const;
const TEXTS = ['createdAt', 'traceContext', 'apiKeyId'] as const;
/** The wire name of `inputJson`: the entry holds the input's JSON text as is. */
const INPUT_FIELD = 'input';

/** The flat `field, value, …` pairs of a snapshot, after the pointer's own fields. */
export function snapshotFields(s: PointerSnapshot): string[] {
  const flat = ['format', POINTER_FORMAT];
  for (const f of NUMBERS) flat.push(f, String(s[f]));
  for (const f of TEXTS) {
    const v = s[f];
    if (v !== undefined) flat.push(f, v);
  }
  if (s.inputJson !== undefined) flat.push(INPUT_FIELD, s.inputJson);
  return flat;
}

const DIGITS = /^(0|[1-9][0-9]{0,9})$/;

/**
 * Moves a decoded record's snapshot fields into `snapshot` (numbers from their text), leaving an
 * old pointer (no `format`) as it is. A format this code does not know is refused: its fields
 * cannot be told apart from garbage. One pass into two fresh objects: the rest-spread and
 * `delete`s it replaced turned the record into a dictionary, ~5 % of a Streams worker's profile.
 */
export function nestSnapshot(record: Record<string, unknown>): Record<string, unknown> {
  if (!('format' in record)) return record;
  const format = record.format;
  if (String(format) !== POINTER_FORMAT)
    throw new SluiceError('BAD_REQUEST', `invalid message pointer: format ${String(format)}`);
  const rest: Record<string, unknown> = {};
  const snapshot: Record<string, unknown> = {};
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    switch (key) {
      case 'format':
        break;
      case 'epoch':
      case 'lastSeq':
      case 'attempts':
      case 'maxAttempts':
        snapshot[key] = typeof v === 'string' && DIGITS.test(v) ? Number(v) : v;
        break;
      case 'createdAt':
      case 'traceContext':
      case 'apiKeyId':
        snapshot[key] = v;
        break;
      case INPUT_FIELD:
        snapshot.inputJson = v;
        break;
      default:
        rest[key] = v;
    }
  }
  rest.snapshot = snapshot;
  return rest;
}

const MAX_COUNT = 2 ** 31 - 1;
const SNAPSHOT_KEYS = new Set<string>([...NUMBERS, ...TEXTS, 'inputJson']);
/** The pattern `z.string().datetime({ offset: true })` checks, from zod itself. */
const DATETIME = z.core.regexes.datetime({ offset: true, local: false, precision: null });

function isCount(v: unknown, min: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= MAX_COUNT;
}

/**
 * The snapshot schema's checks written out, for the worker's hot path (every first delivery
 * carries one; the zod parse was ~4.6 KB of garbage per job): the snapshot when the value is a
 * plainly valid one, else `undefined` and the schema decides (and words the error). Accepts
 * nothing the schema refuses (pointer-format.test.ts compares them).
 */
export function checkedSnapshot(value: unknown): PointerSnapshot | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    if (!SNAPSHOT_KEYS.has(key) || v[key] === undefined) return undefined;
  }
  const { epoch, lastSeq, attempts, maxAttempts, createdAt, traceContext, apiKeyId, inputJson } = v;
  if (
    !isCount(epoch, 0) ||
    !isCount(lastSeq, 0) ||
    !isCount(attempts, 0) ||
    !isCount(maxAttempts, 1) ||
    typeof createdAt !== 'string' ||
    !DATETIME.test(createdAt) ||
    (traceContext !== undefined &&
      (typeof traceContext !== 'string' || traceContext.length > 200)) ||
    (apiKeyId !== undefined && (typeof apiKeyId !== 'string' || apiKeyId.length > 100)) ||
    (inputJson !== undefined && (typeof inputJson !== 'string' || !fitsInPointer(inputJson)))
  )
    return undefined;
  const snapshot: PointerSnapshot = { epoch, lastSeq, attempts, maxAttempts, createdAt };
  if (traceContext !== undefined) snapshot.traceContext = traceContext;
  if (apiKeyId !== undefined) snapshot.apiKeyId = apiKeyId;
  if (inputJson !== undefined) snapshot.inputJson = inputJson;
  return snapshot;
}
