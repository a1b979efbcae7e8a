// The scale run's options (soak-scale.ts), checked before anything starts.
import { z } from 'zod';

const Args = z.object({
  rate: z.coerce.number().positive().default(800),
  jobs: z.coerce.number().int().positive().default(1_000_000),
  every: z.coerce.number().int().positive().default(50_000),
  'retention-min': z.coerce.number().positive().default(10),
  'sweep-every-s': z.coerce.number().int().min(1).default(60),
  // The sweep's size per round trip and its pause between batches (absent: the product defaults).
  'sweep-batch': z.coerce.number().int().min(1).optional(),
  'sweep-pause-ms': z.coerce.number().int().min(0).optional(),
  workers: z.coerce.number().int().min(1).max(16).default(4),
  gateways: z.coerce.number().int().min(1).max(8).default(2),
  concurrency: z.coerce.number().int().min(1).default(16),
  'max-seconds': z.coerce.number().positive().default(Infinity),
  'drain-wait-s': z.coerce.number().positive().default(120),
  label: z
    .string()
    .regex(/^[\w.-]+$/)
    .default('soak-scale'),
});
export type SoakOptions = z.infer<typeof Args>;

/** The options from `--name value` pairs; a bad one is printed naming it and exits 2. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (!name?.startsWith('--') || value === undefined) throw new Error(`bad argument ${name}`);
    raw[name.slice(2)] = value;
  }
  const parsed = Args.strict().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    console.error(`--${issue?.path.join('.') || '?'}: ${issue?.message ?? 'invalid'}`);
    process.exit(2);
  }
  return parsed.data;
}
