// A parked job (needs_review, dead_lettered) moves only when a person acts. Its own event stream
// has ended, so the wait listens to the tenant feed for an event of this job instead of asking
// again and again; after a reconnect (the feed does not replay) and once at the start it reads
// the job's state a single time to catch a move it may have missed.

import type { SluiceClient } from '@sluice/client';
import type { JobRegistry, JobState } from '@sluice/contracts/wire';

export function waitUntilMoved(
  client: SluiceClient<JobRegistry>,
  id: string,
  parked: JobState,
  signal: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const feed = new AbortController();
    const finish = () => {
      offReconnect();
      feed.abort();
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const check = () =>
      void client.jobs.get(id).then(
        (view) => view.state !== parked && finish(),
        () => undefined,
      );
    const offReconnect = client.onReconnect(check);
    signal.addEventListener('abort', finish, { once: true });
    void (async () => {
      try {
        for await (const item of client.watchAll({ signal: feed.signal })) {
          if (item.event.jobId === id) return finish();
        }
      } catch {
        // The feed failed for good (key revoked): the job's own watch reports that error.
        finish();
      }
    })();
    check();
  });
}
