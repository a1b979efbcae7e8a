// Migration 0004: new event ids announced by the database itself where it can (LISTEN/NOTIFY).

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

/**
 * Where the database has LISTEN/NOTIFY (PostgreSQL): NOTIFY new event ids from a statement-level
 * trigger instead of a second statement per insert (no extra round trip). A connection started
 * with `-c sluice.notify=off` (runtimes that carry events themselves) skips it, and with it
 * NOTIFY's commit-time lock.
 */
export function eventsNotifyTrigger(dialect: SqlDialect): Migration {
  return {
    async up(db: AnyDb) {
      if (!dialect.capabilities.listenNotify) return;
      await sql`
        create function sluice_notify_events() returns trigger language plpgsql as $$
        declare ids text[];
        begin
          if coalesce(current_setting('sluice.notify', true), 'on') = 'off' then return null; end if;
          select array_agg(id::text order by id) into ids from new_events;
          if ids is null then return null; end if;
          for i in 1 .. array_length(ids, 1) by 500 loop
            perform pg_notify('sluice_events', array_to_string(ids[i : i + 499], ','));
          end loop;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger job_events_notify after insert on job_events
        referencing new table as new_events
        for each statement execute function sluice_notify_events()`.execute(db);
    },
  };
}
