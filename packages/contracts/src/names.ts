// Name rules shared by pointers, definitions and stream keys. Zod-free.

/** A job kind is a dotted lowercase name: `demo.summarize`, `video.render-scene`. */
export const JOB_KIND_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$/;
export const MAX_JOB_KIND_LENGTH = 100;

/** Tenant ids appear in blob keys and stream fields, so the alphabet is closed. */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isJobKind(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length <= MAX_JOB_KIND_LENGTH && JOB_KIND_PATTERN.test(value)
  );
}

export function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && TENANT_ID_PATTERN.test(value);
}
