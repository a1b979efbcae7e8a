// The message pointer: the only thing a runtime carries. Never file bodies or results. An old
// (format 1) pointer names the job and the worker reads its row; a format-2 pointer also carries
// the row as queued (`snapshot`, pointer-snapshot.ts) so a first delivery can start without that
// read. A hard size bound keeps stream entries small: the carried input is at most 8 KiB.

import { z } from 'zod';
import { SluiceError } from './errors.js';
import { utf8LengthWithin } from './utf8-length.js';
import { PRIORITY_MAX, PRIORITY_MIN } from './define-job.js';
import { JOB_ID_PATTERN, VERSION_PATTERN, parseJobId } from './job-id.js';
import { JOB_KIND_PATTERN, MAX_JOB_KIND_LENGTH, TENANT_ID_PATTERN } from './names.js';
import {
  MAX_POINTER_INPUT_BYTES,
  PointerSnapshot,
  checkedSnapshot,
  nestSnapshot,
  snapshotFields,
} from './pointer-snapshot.js';

/**
 * The whole entry: the carried input's bound plus room for everything else. The identity fields
 * are bounded (an id, a kind of at most 100, a tenant of at most 64), and so are the snapshot's
 * (four counters, a timestamp, a trace context of at most 200, an API key id of at most 100):
 * together well under 2 KiB, so a valid pointer always fits.
 */
export const MAX_POINTER_BYTES = MAX_POINTER_INPUT_BYTES + 2048;
const FIELDS = ['jobId', 'kind', 'version', 'tenantId'] as const;

export const MessagePointer = z
  .object({
    jobId: z.string().regex(JOB_ID_PATTERN),
    kind: z.string().max(MAX_JOB_KIND_LENGTH).regex(JOB_KIND_PATTERN),
    version: z.string().regex(VERSION_PATTERN),
    tenantId: z.string().regex(TENANT_ID_PATTERN),
    /**
     * The job's priority when dispatched: routing only (a runtime picks a queue or band by it).
     * Not written into a stream entry, whose stream already says its band; absent means 0.
     */
    priority: z.number().int().min(PRIORITY_MIN).max(PRIORITY_MAX).optional(),
    /**
     * The due time of a delayed job dispatched before it is due (ISO 8601), for a runtime whose
     * run waits for it itself (`delaysInRun`: a Workflow sleeps until then). Routing only, like
     * `priority`: never written into a stream entry.
     */
    runAt: z.string().datetime({ offset: true }).optional(),
    /**
     * The row as the accept queued it (format 2): lets a FIRST delivery start without reading
     * the row. Absent on old pointers and on every re-dispatch (those read the row).
     */
    snapshot: PointerSnapshot.optional(),
  })
  .strict()
  .refine((p) => parseJobId(p.jobId)?.version === p.version, {
    message: 'the job id prefix must equal the version',
    path: ['version'],
  });
export type MessagePointer = z.infer<typeof MessagePointer>;

/** Within the bound unless proven over it (utf8-length.ts: no encoding in the common case). */
const byteSize = (values: readonly string[]): number => utf8LengthWithin(values, MAX_POINTER_BYTES);

function tooLarge(bytes: number): SluiceError {
  return new SluiceError(
    'POINTER_TOO_LARGE',
    `pointer is ${bytes} bytes (max ${MAX_POINTER_BYTES})`,
    {
      details: { bytes, max: MAX_POINTER_BYTES },
    },
  );
}

/** Flat `field, value, …` list, as XADD takes it. Throws on an invalid or oversized pointer. */
export function encodePointer(pointer: MessagePointer): string[] {
  const valid = parsePointer(pointer);
  const flat = FIELDS.flatMap((f) => [f, valid[f]]);
  if (valid.snapshot) flat.push(...snapshotFields(valid.snapshot));
  const bytes = byteSize(flat);
  if (bytes > MAX_POINTER_BYTES) throw tooLarge(bytes);
  return flat;
}

/** Reads a pointer from a flat field list or a record. Rejects anything over the bound first. */
export function decodePointer(
  fields: readonly unknown[] | Readonly<Record<string, unknown>>,
): MessagePointer {
  const record: Record<string, unknown> = {};
  if (Array.isArray(fields)) {
    if (fields.length % 2 !== 0)
      throw new SluiceError('BAD_REQUEST', 'pointer fields must come in pairs');
    const strings = fields.map((f) => String(f));
    const bytes = byteSize(strings);
    if (bytes > MAX_POINTER_BYTES) throw tooLarge(bytes);
    for (let i = 0; i < strings.length; i += 2) record[strings[i] as string] = strings[i + 1];
  } else {
    const entries = Object.entries(fields);
    const bytes = byteSize(entries.flatMap(([k, v]) => [k, String(v)]));
    if (bytes > MAX_POINTER_BYTES) throw tooLarge(bytes);
    Object.assign(record, Object.fromEntries(entries));
  }
  return parsePointer(nestSnapshot(record));
}

/**
 * The schema's checks written out, for the worker's hot path (every delivery is decoded): the
 * pointer when the value is plainly a valid one (identity, and a snapshot that `checkedSnapshot`
 * passes), else `undefined` and the schema decides (and words the error). Accepts nothing the
 * schema refuses (message-pointer.test.ts and pointer-format.test.ts compare them).
 */
function checkedPointer(value: unknown): MessagePointer | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  let keys = 0;
  let snapshot: PointerSnapshot | undefined;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    if (key === 'snapshot') {
      snapshot = checkedSnapshot(v.snapshot);
      if (!snapshot) return undefined;
      continue;
    }
    if (key !== 'jobId' && key !== 'kind' && key !== 'version' && key !== 'tenantId')
      return undefined;
    keys++;
  }
  const { jobId, kind, version, tenantId } = v;
  if (
    keys !== 4 ||
    typeof jobId !== 'string' ||
    typeof kind !== 'string' ||
    typeof version !== 'string' ||
    typeof tenantId !== 'string' ||
    kind.length > MAX_JOB_KIND_LENGTH ||
    !JOB_KIND_PATTERN.test(kind) ||
    !VERSION_PATTERN.test(version) ||
    !TENANT_ID_PATTERN.test(tenantId) ||
    !JOB_ID_PATTERN.test(jobId) ||
    parseJobId(jobId)?.version !== version
  )
    return undefined;
  return snapshot
    ? { jobId, kind, version, tenantId, snapshot }
    : { jobId, kind, version, tenantId };
}

export function parsePointer(value: unknown): MessagePointer {
  const checked = checkedPointer(value);
  if (checked) return checked;
  const parsed = MessagePointer.safeParse(value);
  if (!parsed.success) {
    throw new SluiceError(
      'BAD_REQUEST',
      `invalid message pointer: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/**
 * The pointer without its snapshot: what a runtime writes when it puts a delivery back (a
 * release, a dead letter). The job may have moved since the snapshot was taken, and a re-added
 * entry is a redelivery: it must make the worker read the row.
 */
export function withoutSnapshot(pointer: MessagePointer): MessagePointer {
  if (!pointer.snapshot) return pointer;
  const { snapshot: _snapshot, ...rest } = pointer;
  return rest;
}
