// Status events on the events stream (`carriesEvents`): every gateway replica tails it and fans events out
// to its watchers. An entry names tenant and kind (for tenant-scoped feeds) and carries one event
// as JSON, or a job's consecutive events written together as a JSON array (one entry, as in the
// database they are one row); entries are small (a progress payload is bounded by the job's
// progress schema).

import { JobEvent, SluiceError, TENANT_ID_PATTERN, type PublishedEvent } from '@sluice/contracts';

/** Flat XADD field list of one event: `t <tenant> k <kind> e <event json>`. */
export function encodeStreamEvent(e: PublishedEvent): string[] {
  return ['t', e.tenantId, 'k', e.kind, 'e', JSON.stringify(e.event)];
}

/** One entry for consecutive events of one job (same tenant and kind): `e` is an array. */
export function encodeStreamEvents(group: readonly PublishedEvent[]): string[] {
  const [first] = group;
  if (!first) throw new SluiceError('BAD_REQUEST', 'no events to encode');
  if (group.length === 1) return encodeStreamEvent(first);
  return ['t', first.tenantId, 'k', first.kind, 'e', JSON.stringify(group.map((g) => g.event))];
}

/** Splits events into runs of consecutive events of the same job: one stream entry each. */
export function groupStreamEvents(events: readonly PublishedEvent[]): PublishedEvent[][] {
  const groups: PublishedEvent[][] = [];
  let current: PublishedEvent[] | undefined;
  for (const e of events) {
    if (current && current[0]?.event.jobId === e.event.jobId) current.push(e);
    else groups.push((current = [e]));
  }
  return groups;
}

/** Reads an events-stream entry; throws BAD_REQUEST on anything that is not one of ours. */
export function decodeStreamEvents(fields: readonly unknown[]): PublishedEvent[] {
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
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) throw new SluiceError('BAD_REQUEST', 'status event entry holds no event');
  return list.map((item) => {
    const event = JobEvent.safeParse(item);
    if (!event.success)
      throw new SluiceError('BAD_REQUEST', 'status event does not match JobEvent');
    return { tenantId, kind, event: event.data };
  });
}
