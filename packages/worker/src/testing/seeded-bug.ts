// Seeded bugs (reliability-anchors 5.8): each name is one known-dangerous change that product
// code applies only when `SLUICE_SEEDED_BUG=<name>` is set in the environment. `npm run
// seeded-bugs` runs the tests that must catch each one with the switch on and proves they turn
// red. Read here and only here; no config reaches it. Unset, `seededBug()` is one comparison.

export const SEEDED_BUGS = [
  /** The delivery is acknowledged before the terminal transition is stored. */
  'ack-before-terminal',
  /** Asset publish and cleanup skip the ownership check (and delete any staging key). */
  'asset-skip-owner-check',
  /** A sync (ambiguous) provider call is retried automatically after an ambiguous failure. */
  'retry-ambiguous',
  /** A job on a version nobody serves runs on another served version of its kind. */
  'version-fallback',
  /** The unit pool drops a failed unit's error instead of failing the stage. */
  'pool-swallow-error',
  /** Progress still queued is flushed after the terminal event instead of before it. */
  'progress-after-terminal',
  /** Claim renewal checks no owner (Streams: unconditional XCLAIM … 0; embedded: no token). */
  'renew-unowned',
  /** A checkpoint is looked up by job only, ignoring the unit key. */
  'checkpoint-without-unit-key',
] as const;
export type SeededBug = (typeof SEEDED_BUGS)[number];

function parseSeededBug(raw: string | undefined): SeededBug | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!(SEEDED_BUGS as readonly string[]).includes(raw)) {
    // A typo must not silently mean "no bug": the run would count a miss as a pass elsewhere.
    throw new Error(`SLUICE_SEEDED_BUG: unknown seeded bug "${raw}"`);
  }
  return raw as SeededBug;
}

const active = parseSeededBug(process.env.SLUICE_SEEDED_BUG);

/** True when this seeded bug is switched on for this process (tests only). */
export function seededBug(name: SeededBug): boolean {
  return active === name;
}
