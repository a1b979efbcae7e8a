// Deterministic test bodies made on demand: byte `p` of every body is `patternByte(p)`, so a
// reader can check any range it gets back without the writer keeping a copy. Runtime-neutral
// (web streams only): the same helpers run under Node and workerd.

export function patternByte(position: number): number {
  return (position * 31 + Math.floor(position / 65_536)) & 255;
}

function fill(offset: number, length: number): Uint8Array {
  const chunk = new Uint8Array(length);
  for (let i = 0; i < length; i++) chunk[i] = patternByte(offset + i);
  return chunk;
}

export interface PatternStreamOptions {
  chunkBytes?: number;
  /** Called before each chunk is produced with the bytes produced so far (may wait). */
  beforeChunk?: (produced: number) => Promise<void> | void;
}

/** `size` pattern bytes as a pull stream: nothing is produced before the reader asks. */
export function patternStream(
  size: number,
  opts: PatternStreamOptions = {},
): ReadableStream<Uint8Array> {
  const chunkBytes = opts.chunkBytes ?? 64 * 1024;
  let produced = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (produced >= size) {
          controller.close();
          return;
        }
        await opts.beforeChunk?.(produced);
        const length = Math.min(chunkBytes, size - produced);
        controller.enqueue(fill(produced, length));
        produced += length;
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads `body` to its end and checks every byte against the pattern starting at `offset`.
 * Returns the byte count and the number of chunks (one chunk for a big body means it was
 * buffered somewhere on the way).
 */
export async function checkPattern(
  body: ReadableStream<Uint8Array>,
  offset = 0,
): Promise<{ size: number; chunks: number }> {
  const reader = body.getReader();
  let size = 0;
  let chunks = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    chunks++;
    const bytes = r.value;
    for (let i = 0; i < bytes.byteLength; i++) {
      if (bytes[i] !== patternByte(offset + size + i)) {
        await reader.cancel();
        throw new Error(`byte ${offset + size + i} differs from the pattern`);
      }
    }
    size += bytes.byteLength;
  }
  return { size, chunks };
}

export async function textOf(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

export async function* chunksOf(...parts: string[]): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for (const p of parts) yield encoder.encode(p);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
