// JSON columns: always written as text (pg would turn arrays into array literals) and read back
// as text on both dialects (the pg pool's type parser leaves json/jsonb unparsed).

export function toJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

export function fromJson<T = unknown>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
// (A non-string only arrives from a raw pg client without our type parser; it is already parsed.)

/** ISO-8601 UTC with milliseconds: sorts as text on both dialects. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}

export function isoIn(ms: number, now: number = Date.now()): string {
  return new Date(now + ms).toISOString();
}
