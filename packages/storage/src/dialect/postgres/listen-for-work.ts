// The work signal on PostgreSQL: a dedicated connection LISTENs on the jobs channel (an insert
// trigger NOTIFYs it, migration 0005) and wakes the waiters; it reconnects with backoff after a
// lost connection and wakes once it listens again (anything inserted meanwhile is claimable).

import type pg from 'pg';
import { JOBS_CHANNEL } from '../../migration-write-model.js';

/** Listens until the returned stop is called. */
export function listenForWork(pool: pg.Pool, wake: () => void): () => Promise<void> {
  let client: pg.PoolClient | undefined;
  let closed = false;
  let delay = 200;
  // The connect in flight: `close` awaits it, because a client checked out after `close` would
  // never be released and the pool's `end()` (the database's close) would wait for it forever.
  let connecting: Promise<void> | undefined;
  const connect = async (): Promise<void> => {
    if (closed) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await pool.connect();
      if (closed) return c.release();
      const own = c;
      own.on('notification', (msg) => {
        if (msg.channel === JOBS_CHANNEL) wake();
      });
      own.on('error', () => reconnect(own));
      await own.query(`listen ${JOBS_CHANNEL}`);
      if (closed) return own.release(true);
      client = own;
      delay = 200;
      wake(); // anything inserted while not listening is claimable now
    } catch {
      if (c && client !== c) c.release(true);
      if (!closed) {
        setTimeout(() => start(), (delay = Math.min(5000, delay * 2))).unref();
      }
    }
  };
  const start = () => {
    connecting = connect().finally(() => (connecting = undefined));
  };
  const reconnect = (c: pg.PoolClient) => {
    if (client !== c) return;
    client = undefined;
    c.release(true);
    if (!closed) setTimeout(() => start(), delay).unref();
  };
  start();
  return async () => {
    closed = true;
    await connecting;
    const c = client;
    client = undefined;
    if (c) {
      await c.query(`unlisten ${JOBS_CHANNEL}`).catch(() => {});
      c.release();
    }
  };
}
