// The idempotency table: every provider call is declared and classified before any code may
// call it. The first row that matches decides, so a call that is both undeclared and synchronous
// is refused rather than sent:
//
//   not declared, or declared inconsistently          -> fail_closed (refused before sending)
//   `verified` with recorded duplicate-request evidence -> retry_safe
//   asynchronous job returning an external id          -> pollable
//   synchronous call (documented key or none)          -> ambiguous
//
// The guard reads the class, never the provider's name.

import { z } from 'zod';
import { ProviderLimit } from './limits.js';

export const CALL_TYPES = ['sync', 'async-job'] as const;
export type CallType = (typeof CALL_TYPES)[number];

export const IDEMPOTENCY_KEY_SUPPORT = ['none', 'documented', 'verified'] as const;
export type IdempotencyKeySupport = (typeof IDEMPOTENCY_KEY_SUPPORT)[number];

export const CALL_CLASSES = ['fail_closed', 'retry_safe', 'pollable', 'ambiguous'] as const;
export type CallClass = (typeof CALL_CLASSES)[number];

const name = z.string().trim().min(1).max(100);

/** A provider call declaration as written in `defineJob({ providers })`. */
export const ProviderCall = z.object({
  provider: name,
  modality: name,
  call: z.enum(CALL_TYPES),
  idempotencyKey: z.enum(IDEMPOTENCY_KEY_SUPPORT),
  /** What proves `verified`: a recorded duplicate-request test. Required for `verified`. */
  evidence: z.string().max(2000).optional(),
  /** Shared caps on this call's provider (limits.ts); the deployment's config overrides them. */
  limits: ProviderLimit.optional(),
});
export type ProviderCall = z.infer<typeof ProviderCall>;

export type Classification =
  | { callClass: 'fail_closed'; reason: string }
  | { callClass: Exclude<CallClass, 'fail_closed'>; declaration: ProviderCall };

/** Classifies a declaration with its reason; anything not provably safer is `fail_closed`. */
export function classifyDeclaration(declaration: unknown): Classification {
  const parsed = ProviderCall.safeParse(declaration);
  if (!parsed.success) {
    return {
      callClass: 'fail_closed',
      reason: `undeclared or malformed call: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
    };
  }
  const decl = parsed.data;
  const hasEvidence = (decl.evidence ?? '').trim().length > 0;
  if (decl.idempotencyKey === 'verified' && !hasEvidence) {
    return { callClass: 'fail_closed', reason: 'idempotencyKey "verified" without evidence' };
  }
  if (decl.idempotencyKey === 'verified') return { callClass: 'retry_safe', declaration: decl };
  if (decl.call === 'async-job') return { callClass: 'pollable', declaration: decl };
  return { callClass: 'ambiguous', declaration: decl };
}

export function classifyCall(declaration: unknown): CallClass {
  return classifyDeclaration(declaration).callClass;
}
