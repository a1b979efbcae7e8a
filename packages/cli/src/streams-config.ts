// `streams` in `sluice.config.ts`: the valkey-streams runtime's fair dispatch (bounded depth per
// job stream, the rest held in the database and handed out round-robin across tenants by the
// fair feeder). Validated here, at start, so a typo fails with INVALID_CONFIG instead of running
// unbounded or with a depth of 0.

import { SluiceError } from '@sluice/contracts';
import { z } from 'zod';

const Fairness = z
  .object({
    /** Undelivered entries per job stream at most (gateway default 256). */
    maxUndelivered: z.number().int().min(1).max(100_000).optional(),
    /** The fair feeder's period in ms (gateway default 25). */
    feedEveryMs: z.number().int().min(1).max(60_000).optional(),
  })
  .strict();

export const StreamsConfig = z
  .object({ fairness: z.union([z.literal(false), Fairness]).optional() })
  .strict();
export type StreamsConfig = z.infer<typeof StreamsConfig>;

/** The checked `streams` section (an absent one keeps the gateway's defaults). */
export function parseStreamsConfig(value: unknown): StreamsConfig {
  const parsed = StreamsConfig.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = ['streams', ...(issue?.path ?? [])].join('.');
  throw new SluiceError('INVALID_CONFIG', `${where}: ${issue?.message ?? 'invalid'}`);
}
