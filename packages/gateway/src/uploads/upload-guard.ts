// What an upload must pass before its bytes reach the blob store: not empty, a content type that
// the bytes bear out (magic numbers: a declared `image/png` must start like a PNG; an undeclared
// or generic type takes the sniffed one), a type on the stored list and never an active one
// (upload-types.ts), and a body that keeps coming (an idle body is cut after `idleMs`, so a
// stalled client holds no temp file for long).

import { SluiceError } from '@sluice/contracts';
import { isStoredType } from './upload-types.js';

/** Types recognised by their first bytes (offset, bytes). */
const MAGIC: readonly { type: string; offset: number; bytes: readonly number[] }[] = [
  { type: 'image/png', offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', offset: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', offset: 0, bytes: [0x47, 0x49, 0x46, 0x38] },
  { type: 'image/webp', offset: 8, bytes: [0x57, 0x45, 0x42, 0x50] },
  { type: 'application/pdf', offset: 0, bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'application/zip', offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'audio/mpeg', offset: 0, bytes: [0x49, 0x44, 0x33] },
  { type: 'audio/wav', offset: 8, bytes: [0x57, 0x41, 0x56, 0x45] },
  { type: 'audio/ogg', offset: 0, bytes: [0x4f, 0x67, 0x67, 0x53] },
  { type: 'audio/flac', offset: 0, bytes: [0x66, 0x4c, 0x61, 0x43] },
  { type: 'video/mp4', offset: 4, bytes: [0x66, 0x74, 0x79, 0x70] },
  { type: 'video/webm', offset: 0, bytes: [0x1a, 0x45, 0xdf, 0xa3] },
];
const SNIFFABLE = new Set(MAGIC.map((m) => m.type));
const GENERIC = new Set(['application/octet-stream']);
export const SNIFF_BYTES = 16;

export function sniff(prefix: Uint8Array): string | undefined {
  return MAGIC.find(
    (m) =>
      prefix.length >= m.offset + m.bytes.length &&
      m.bytes.every((b, i) => prefix[m.offset + i] === b),
  )?.type;
}

/** The type to store, or why not (BAD_REQUEST; `details.status` 415 for a type refusal). */
export function decideType(
  declared: string,
  prefix: Uint8Array,
  allow: readonly string[] | undefined,
): string | SluiceError {
  if (prefix.length === 0) return new SluiceError('BAD_REQUEST', 'empty upload');
  const sniffed = sniff(prefix);
  let type = declared;
  if (SNIFFABLE.has(declared) && sniffed !== declared) {
    return new SluiceError('BAD_REQUEST', `the content is not ${declared}`, {
      details: { status: 415 },
    });
  }
  if (GENERIC.has(declared) && sniffed) type = sniffed;
  if (!isStoredType(type, allow)) {
    return new SluiceError('BAD_REQUEST', `uploads of type ${type} are not accepted`, {
      details: { status: 415 },
    });
  }
  return type;
}

export interface GuardedBody {
  /** The first bytes (up to SNIFF_BYTES, fewer only when the body is shorter). */
  prefix: Uint8Array;
  /** The whole body again, prefix included, cut with TIMEOUT when idle for `idleMs`. */
  body: ReadableStream<Uint8Array>;
  /** Whether the body was cut for idling (the store's error may not say so). */
  timedOut(): boolean;
}

/** Reads the first bytes of `source` (within `idleMs`), then hands back the whole stream. */
export async function guardBody(
  source: ReadableStream<Uint8Array>,
  idleMs: number,
): Promise<GuardedBody> {
  const reader = source.getReader();
  let timedOut = false;
  const idle = () => {
    timedOut = true;
    return new SluiceError('TIMEOUT', `upload body idle for ${Math.round(idleMs / 1000)} s`);
  };
  const read = async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(idle()), idleMs);
        }),
      ]);
    } catch (error) {
      void reader.cancel(error).catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < SNIFF_BYTES) {
    const r = await read();
    if (r.done) {
      done = true;
      break;
    }
    head.push(r.value);
    size += r.value.length;
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const c of head) {
    joined.set(c, at);
    at += c.length;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (joined.length > 0) controller.enqueue(joined);
      if (done) controller.close();
    },
    async pull(controller) {
      if (done) return;
      const r = await read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { prefix: joined.subarray(0, SNIFF_BYTES), body, timedOut: () => timedOut };
}
