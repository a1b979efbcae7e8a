// Every JetStream name this runtime uses, built in one place: the jobs stream and its subjects, a
// durable consumer per (kind, version), the dead-letter stream and the ownership bucket. The
// gateway and the workers must agree on the prefix.

import { createHash } from 'node:crypto';

export const DEFAULT_PREFIX = 'sluice';

export interface NatsNames {
  readonly prefix: string;
  /** The work-queue stream that holds job pointers until a worker acknowledges them. */
  readonly jobsStream: string;
  /** `<prefix>.jobs.<kind>.<version>`: kinds are dotted and versions are `v<n>`, so it is unambiguous. */
  jobsSubject(kind: string, version: string): string;
  /** Every job subject of a kind (stream figures per kind). */
  kindSubjects(kind: string): string;
  /**
   * The durable pull consumer of one (kind, version). Consumer names take no dots: the kind is
   * kept readable and a hash of the pair keeps `a_b.c` and `a.b_c` apart.
   */
  durable(kind: string, version: string): string;
  readonly deadStream: string;
  deadSubject(kind: string, version: string): string;
  /** KV bucket: stream sequence → the worker that holds the delivery (own pending, owner check). */
  readonly ownersBucket: string;
  /** KV bucket: the generation marker the gateway's data-loss detector writes. */
  readonly metaBucket: string;
}

export function createNatsNames(prefix = DEFAULT_PREFIX): NatsNames {
  const upper = prefix.toUpperCase().replace(/-/g, '_');
  return {
    prefix,
    jobsStream: `${upper}_JOBS`,
    jobsSubject: (kind, version) => `${prefix}.jobs.${kind}.${version}`,
    kindSubjects: (kind) => `${prefix}.jobs.${kind}.*`,
    durable(kind, version) {
      const hash = createHash('sha256').update(`${kind}/${version}`).digest('hex').slice(0, 10);
      return `${prefix}_${kind.replace(/\./g, '_')}_${version}_${hash}`;
    },
    deadStream: `${upper}_DEAD`,
    deadSubject: (kind, version) => `${prefix}.dead.${kind}.${version}`,
    ownersBucket: `${prefix}_owners`,
    metaBucket: `${prefix}_meta`,
  };
}
