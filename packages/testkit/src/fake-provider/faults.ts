// Fault injection: a per-request `x-fault` header wins; otherwise the first admin rule that
// matches the request applies and consumes one of its `times`.
import {
  FAKE_PROVIDER_ENDPOINTS,
  FAULTS,
  type FakeProviderEndpoint,
  type Fault,
  type FaultRule,
} from './types.js';

export const DEFAULT_SLOW_DELAY_MS = 2000;

export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
}

export function isFault(value: unknown): value is Fault {
  return typeof value === 'string' && (FAULTS as readonly string[]).includes(value);
}

function isEndpoint(value: unknown): value is FakeProviderEndpoint {
  return (
    typeof value === 'string' && (FAKE_PROVIDER_ENDPOINTS as readonly string[]).includes(value)
  );
}

function optionalString(
  rule: Record<string, unknown>,
  field: string,
  index: number,
): string | undefined {
  const value = rule[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new FaultRuleError(`rule ${index}: ${field} must be a non-empty string`);
  }
  return value;
}

function optionalCount(
  rule: Record<string, unknown>,
  field: string,
  index: number,
  min: number,
): number | undefined {
  const value = rule[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new FaultRuleError(`rule ${index}: ${field} must be an integer >= ${min}`);
  }
  return value;
}

/** Validates an admin payload (a list of rules, or `{ rules: [...] }`). Throws FaultRuleError. */
export function parseFaultRules(input: unknown): FaultRule[] {
  const list = Array.isArray(input)
    ? input
    : typeof input === 'object' &&
        input !== null &&
        Array.isArray((input as { rules?: unknown }).rules)
      ? (input as { rules: unknown[] }).rules
      : undefined;
  if (!list) throw new FaultRuleError('expected a JSON array of fault rules');
  const allowed = new Set(['endpoint', 'unitKey', 'jobId', 'fault', 'times', 'delayMs']);
  return list.map((raw: unknown, index): FaultRule => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new FaultRuleError(`rule ${index}: expected an object`);
    }
    const rule = raw as Record<string, unknown>;
    const unknownField = Object.keys(rule).find((k) => !allowed.has(k));
    if (unknownField) throw new FaultRuleError(`rule ${index}: unknown field ${unknownField}`);
    if (!isFault(rule.fault)) {
      throw new FaultRuleError(`rule ${index}: fault must be one of ${FAULTS.join(', ')}`);
    }
    if (rule.endpoint !== undefined && !isEndpoint(rule.endpoint)) {
      throw new FaultRuleError(
        `rule ${index}: endpoint must be one of ${FAKE_PROVIDER_ENDPOINTS.join(', ')}`,
      );
    }
    const parsed: FaultRule = {
      fault: rule.fault,
      times: optionalCount(rule, 'times', index, 1) ?? 1,
    };
    if (rule.endpoint !== undefined) parsed.endpoint = rule.endpoint;
    const unitKey = optionalString(rule, 'unitKey', index);
    if (unitKey !== undefined) parsed.unitKey = unitKey;
    const jobId = optionalString(rule, 'jobId', index);
    if (jobId !== undefined) parsed.jobId = jobId;
    const delayMs = optionalCount(rule, 'delayMs', index, 0);
    if (delayMs !== undefined) parsed.delayMs = delayMs;
    return parsed;
  });
}

export interface FaultMatch {
  endpoint: FakeProviderEndpoint;
  jobId: string | null;
  unitKey: string | null;
}

export interface ActiveFault {
  fault: Fault;
  delayMs: number;
}

export interface FaultBook {
  set(rules: readonly FaultRule[]): void;
  clear(): void;
  /** Rules still armed, with their remaining `times`. */
  list(): FaultRule[];
  /** The first matching rule, consumed once; undefined when none matches. */
  take(match: FaultMatch): ActiveFault | undefined;
}

type ArmedRule = FaultRule & { times: number };

export function createFaultBook(): FaultBook {
  let rules: ArmedRule[] = [];
  return {
    set(next) {
      rules = next.map((r) => ({ ...r, times: r.times ?? 1 }));
    },
    clear() {
      rules = [];
    },
    list: () => rules.map((r) => ({ ...r })),
    take(match) {
      const index = rules.findIndex(
        (r) =>
          // async-fail only means something to a submit; it never swallows a sync or safe call.
          (r.fault !== 'async-fail' || match.endpoint === 'async') &&
          (r.endpoint === undefined || r.endpoint === match.endpoint) &&
          (r.jobId === undefined || r.jobId === match.jobId) &&
          (r.unitKey === undefined || r.unitKey === match.unitKey),
      );
      const rule = rules[index];
      if (!rule) return undefined;
      rule.times -= 1;
      if (rule.times <= 0) rules.splice(index, 1);
      return { fault: rule.fault, delayMs: rule.delayMs ?? DEFAULT_SLOW_DELAY_MS };
    },
  };
}

/**
 * Reads `x-fault` (and `x-fault-delay-ms` for `slow`). Returns undefined without the header,
 * or a FaultRuleError for an unknown fault, so a typo never silently means "no fault".
 */
export function parseHeaderFault(
  fault: string | undefined,
  delay: string | undefined,
): ActiveFault | FaultRuleError | undefined {
  if (fault === undefined || fault === '') return undefined;
  if (!isFault(fault)) return new FaultRuleError(`x-fault must be one of ${FAULTS.join(', ')}`);
  const delayMs = delay === undefined ? DEFAULT_SLOW_DELAY_MS : Number(delay);
  if (!Number.isInteger(delayMs) || delayMs < 0) {
    return new FaultRuleError('x-fault-delay-ms must be an integer >= 0');
  }
  return { fault, delayMs };
}
