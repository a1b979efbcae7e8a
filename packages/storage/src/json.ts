// JSON columns: always written as text (pg would turn arrays into array literals), read back as
// text on SQLite and parsed on PostgreSQL.

export function toJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

export function fromJson<T = unknown>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** ISO-8601 UTC with milliseconds: sorts as text on both dialects. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}

export function isoIn(ms: number, now: number = Date.now()): string {
  return new Date(now + ms).toISOString();
}
