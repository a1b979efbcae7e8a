// Config the Sluice Streams parent hands its children (JSON over the fork).
export interface StreamsChildConfig {
  redisUrl: string;
  pgUrl: string;
  /** PostgreSQL pool per process. */
  poolSize: number;
  /** A latency run: stamp dispatch (entry id) and terminal commit, tail the events stream. */
  latency: boolean;
}

export function parseStreamsChildConfig(config: Record<string, unknown>): StreamsChildConfig {
  const { redisUrl, pgUrl, poolSize, latency } = config;
  if (
    typeof redisUrl !== 'string' ||
    typeof pgUrl !== 'string' ||
    typeof poolSize !== 'number' ||
    typeof latency !== 'boolean'
  )
    throw new Error(`bad sluice-streams child config: ${JSON.stringify(config)}`);
  return { redisUrl, pgUrl, poolSize, latency };
}

/**
 * The latency producer's entry id: `<wall ms>-<monotonic µs>`. The ms part is what `*` would give;
 * the sequence part carries the dispatch stamp (monotonic, system-wide) to the consumer, because
 * the pointer itself is strict (four fields) and must stay the gateway's. Ids stay increasing.
 */
export function stampedEntryId(
  last: { ms: number; seq: number },
  stampMs: number,
): { id: string; ms: number; seq: number } {
  const ms = Math.max(Date.now(), last.ms);
  let seq = Math.round(stampMs * 1000);
  if (ms === last.ms && seq <= last.seq) seq = last.seq + 1;
  return { id: `${ms}-${seq}`, ms, seq };
}

/** The dispatch stamp (monotonic ms) in an entry id written by `stampedEntryId`. */
export function stampOfEntryId(id: string): number | undefined {
  const dash = id.indexOf('-');
  const seq = Number(id.slice(dash + 1));
  return dash > 0 && Number.isFinite(seq) && seq > 1e6 ? seq / 1000 : undefined;
}
