// Config the Sluice NATS parent hands its children (JSON over the fork), and the dispatch stamp a
// JetStream delivery carries.
export interface NatsChildConfig {
  natsUrl: string;
  /** The run's subject and stream prefix (a fresh stream and consumer per run). */
  prefix: string;
  pgUrl: string;
  /** PostgreSQL pool per process. */
  poolSize: number;
  /** A latency run: the children take each delivery's dispatch stamp. */
  latency: boolean;
}

export function parseNatsChildConfig(config: Record<string, unknown>): NatsChildConfig {
  const { natsUrl, prefix, pgUrl, poolSize, latency } = config;
  if (
    typeof natsUrl !== 'string' ||
    typeof prefix !== 'string' ||
    typeof pgUrl !== 'string' ||
    typeof poolSize !== 'number' ||
    typeof latency !== 'boolean'
  )
    throw new Error(`bad sluice-nats child config: ${JSON.stringify(config)}`);
  return { natsUrl, prefix, pgUrl, poolSize, latency };
}

/**
 * When the server stored the message (wall-clock ms), from a delivery's ack subject:
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ns>.<pending>` (9 tokens), or with the
 * domain and account hash in front (12 tokens). The pointer itself is strict (the gateway's four
 * fields), so this server stamp stands in for the Streams producer's id stamp.
 */
export function storedAtOfReply(reply: string): number | undefined {
  const t = reply.split('.');
  if (t[0] !== '$JS' || t[1] !== 'ACK') return undefined;
  const at = t.length === 9 ? 7 : t.length >= 11 ? 9 : -1;
  const ns = at > 0 ? Number(t[at]) : NaN;
  return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined;
}
