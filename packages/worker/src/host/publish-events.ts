// Status events to the other processes, for runtimes that carry them (`capabilities.carriesEvents`:
// an events stream every gateway tails). Called after the events are committed; best
// effort: it never blocks or fails a job, and a lost publish is repaired by the watchers'
// database backfill. Publishes are issued in commit order on one connection, so they stay ordered.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage';
import type { WorkerLogger } from '../logger.js';

export type PublishEvents = (events: readonly StoredEvent[]) => void;

export function createEventPublisher(
  consumer: RuntimeConsumer<Delivery>,
  logger: WorkerLogger,
): PublishEvents {
  const publish = consumer.publishEvents?.bind(consumer);
  if (!consumer.capabilities.carriesEvents || !publish) return () => {};
  let lastWarning = -Infinity;
  let failed = 0;
  return (events) => {
    if (events.length === 0) return;
    publish(events.map((e) => ({ tenantId: e.tenantId, kind: e.kind, event: e.event }))).catch(
      (error: unknown) => {
        failed += events.length;
        if (Date.now() - lastWarning < 1000) return;
        lastWarning = Date.now();
        logger.warn('publishing status events failed; watchers will backfill', { error, failed });
        failed = 0;
      },
    );
  };
}
