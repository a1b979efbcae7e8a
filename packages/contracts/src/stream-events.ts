// Status events on the Valkey events stream: every gateway replica tails it and fans events out
// to its watchers. The entry names tenant and kind (for tenant-scoped feeds) and carries the event
// as JSON; entries are small (a progress payload is bounded by the job's progress schema).

import { SluiceError } from './errors.js';
import { JobEvent } from './events.js';
import { TENANT_ID_PATTERN } from './names.js';

export interface PublishedEvent {
  tenantId: string;
  kind: string;
  event: JobEvent;
}

/** Flat XADD field list: `t <tenant> k <kind> e <event json>`. */
export function encodeStreamEvent(e: PublishedEvent): string[] {
  return ['t', e.tenantId, 'k', e.kind, 'e', JSON.stringify(e.event)];
}

/** Reads an events-stream entry; throws BAD_REQUEST on anything that is not one of ours. */
export function decodeStreamEvent(fields: readonly unknown[]): PublishedEvent {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), String(fields[i + 1]));
  const tenantId = map.get('t');
  const kind = map.get('k');
  const raw = map.get('e');
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId) || !kind || raw === undefined) {
    throw new SluiceError('BAD_REQUEST', 'not a status event entry');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SluiceError('BAD_REQUEST', 'status event is not JSON');
  }
  const event = JobEvent.safeParse(parsed);
  if (!event.success) throw new SluiceError('BAD_REQUEST', 'status event does not match JobEvent');
  return { tenantId, kind, event: event.data };
}
