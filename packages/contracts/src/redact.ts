// Fields a job kind marks secret (`defineJob({ redact: ['input.apiKey', 'output.token'] })`).
// The stored job keeps the real values and the worker receives them; only the operator's reads
// (`jobs.detail`, and the dashboard built on it) replace them with REDACTED, so a person with
// `jobs:read` never sees a credential a submitter passed through a job.

import { SluiceError } from './errors.js';
import type { Schema } from './define-job.js';

export const REDACTED = '[redacted]';

/** A redacted path: which side of the job, and the keys under it. */
export interface RedactPath {
  readonly side: 'input' | 'output';
  readonly keys: readonly string[];
}

const KEY = /^[A-Za-z_$][\w$-]*$/;

interface ZodDefLike {
  type?: string;
  shape?: Record<string, Schema>;
  innerType?: Schema;
  in?: Schema;
}

const defOf = (schema: Schema): ZodDefLike =>
  (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;

/** The object shape a schema parses into, looking through optional/nullable/default wrappers;
 * undefined when the schema cannot say (unknown, any, record, union): such a path is allowed. */
function shapeOf(schema: Schema): Record<string, Schema> | null | undefined {
  let def = defOf(schema);
  for (let i = 0; i < 8; i++) {
    if (def.type === 'object') return def.shape ?? {};
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) break;
    def = defOf(inner);
  }
  // A scalar has no fields: a path into it can never match, so it is a typo.
  const scalar = ['string', 'number', 'boolean', 'bigint', 'date', 'null', 'literal', 'enum'];
  return def.type && scalar.includes(def.type) ? null : undefined;
}

/**
 * Parses a kind's `redact` list against its input and output schemas. A path must start with
 * `input.` or `output.` and name keys the schema declares (where the schema is an object); a
 * typo would otherwise leave the secret showing, so it is refused as INVALID_CONFIG.
 */
export function parseRedactPaths(
  kind: string,
  paths: readonly string[],
  schemas: { input: Schema; output: Schema },
): RedactPath[] {
  return paths.map((path, index) => {
    const refuse = (why: string) =>
      new SluiceError('INVALID_CONFIG', `job "${kind}": redact "${path}" ${why}`, {
        details: { kind, field: `redact.${index}` },
      });
    if (typeof path !== 'string') throw refuse('must be a string');
    const [side, ...keys] = path.split('.');
    if (side !== 'input' && side !== 'output')
      throw refuse('must start with "input." or "output."');
    if (keys.length === 0 || !keys.every((k) => KEY.test(k)))
      throw refuse('must name fields like "input.apiKey" or "input.auth.token"');
    let schema: Schema | undefined = schemas[side];
    for (const key of keys) {
      if (!schema) break;
      const shape = shapeOf(schema);
      if (shape === null) throw refuse(`goes into a value that has no fields at "${key}"`);
      if (shape === undefined) break;
      schema = shape[key];
      if (!schema) throw refuse(`names "${key}", which the ${side} schema does not declare`);
    }
    return { side, keys };
  });
}

function redactAt(value: unknown, keys: readonly string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactAt(v, keys));
  const [key, ...rest] = keys as [string, ...string[]];
  if (!Object.prototype.hasOwnProperty.call(value, key)) return value;
  const record = value as Record<string, unknown>;
  return { ...record, [key]: rest.length === 0 ? REDACTED : redactAt(record[key], rest) };
}

/** A copy of `value` (a job's input or output) with the paths of `side` replaced; never mutates.
 * Arrays are looked through, so a batch job's inputs are each redacted. */
export function redactJobData(
  paths: readonly RedactPath[] | undefined,
  side: 'input' | 'output',
  value: unknown,
): unknown {
  let out = value;
  for (const p of paths ?? []) if (p.side === side) out = redactAt(out, p.keys);
  return out;
}
