// Raw Streams consumer: XREADGROUP COUNT 100 on one connection, handlers under a semaphore, one
// XACK per event-loop turn on a second connection. Read batch size and execution concurrency are
// separate; un-acked entries per consumer are capped at max(COUNT, concurrency).
import { Redis } from 'iovalkey';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import { parseRawStreamsConfig } from '../anchors/raw-streams-config.js';

const READ_COUNT = 100;
const BLOCK_MS = 1_000;

interface Entry {
  id: string;
  job: JobPayload;
}

/** Parses an XREADGROUP reply: [[key, [[id, [field, value, …]], …]]] or null on timeout. */
export function parseEntries(reply: unknown): Entry[] {
  if (!Array.isArray(reply)) return [];
  const out: Entry[] = [];
  for (const stream of reply as unknown[]) {
    const entries = Array.isArray(stream) ? (stream[1] as unknown) : undefined;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      if (!Array.isArray(entry)) continue;
      const [id, fields] = entry as [unknown, unknown];
      if (typeof id !== 'string' || !Array.isArray(fields)) continue;
      const at = fields.indexOf('p');
      const raw = at >= 0 ? fields[at + 1] : undefined;
      if (typeof raw !== 'string') continue;
      out.push({ id, job: JSON.parse(raw) as JobPayload });
    }
  }
  return out;
}

function connect(host: string, port: number): Redis {
  const client = new Redis({ host, port });
  client.on('error', (error) => console.error(`raw-streams: ${error.message}`));
  return client;
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseRawStreamsConfig(init.config);
  const reader = connect(cfg.host, cfg.port);
  const acker = connect(cfg.host, cfg.port);
  await Promise.all([reader.ping(), acker.ping()]);
  const consumerName = `c${init.index}`;
  const prefetch = Math.max(READ_COUNT, init.concurrency);
  const ready: Entry[] = [];
  let unacked = 0;
  let running = 0;
  let stopped = false;
  let pendingIds: string[] = [];
  let flushScheduled = false;
  let wakeReader: (() => void) | undefined;
  let inFlightAcks = Promise.resolve();
  let failure: unknown;

  const flushAcks = () => {
    flushScheduled = false;
    const ids = pendingIds;
    pendingIds = [];
    inFlightAcks = acker.xack(cfg.key, cfg.group, ...ids).then(() => {
      unacked -= ids.length;
      hooks.completed(ids.length);
      wakeReader?.();
      wakeReader = undefined;
    });
    inFlightAcks.catch((error: unknown) => (failure ??= error));
  };

  const finish = (id: string) => {
    running--;
    pendingIds.push(id);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAcks);
    }
    pump();
  };

  const runOne = async (entry: Entry) => {
    await hooks.handle(entry.job);
    finish(entry.id);
  };

  function pump(): void {
    while (running < init.concurrency && ready.length > 0) {
      const entry = ready.shift() as Entry;
      running++;
      runOne(entry).catch((error: unknown) => (failure ??= error));
    }
  }

  async function readLoop(): Promise<void> {
    while (!stopped) {
      if (failure) throw failure;
      const room = prefetch - unacked;
      if (room <= 0) {
        await new Promise<void>((resolve) => (wakeReader = resolve));
        continue;
      }
      const reply: unknown = await reader.call(
        'XREADGROUP',
        'GROUP',
        cfg.group,
        consumerName,
        'COUNT',
        Math.min(READ_COUNT, room),
        'BLOCK',
        BLOCK_MS,
        'STREAMS',
        cfg.key,
        '>',
      );
      const entries = parseEntries(reply);
      unacked += entries.length;
      for (const entry of entries) ready.push(entry);
      pump();
    }
  }

  let loop: Promise<void> | undefined;
  return {
    start() {
      loop = readLoop();
      return loop.catch((error: unknown) => {
        if (!stopped) throw error;
      });
    },
    async close() {
      stopped = true;
      wakeReader?.();
      // The blocked XREADGROUP holds its connection; dropping it is the way out.
      reader.disconnect();
      await inFlightAcks.catch(() => undefined);
      await acker.quit();
    },
  };
};

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseRawStreamsConfig(init.config);
  const client = connect(cfg.host, cfg.port);
  await client.ping();
  return {
    add: async (job) => {
      await client.xadd(cfg.key, '*', 'p', JSON.stringify(job));
    },
    close: async () => {
      await client.quit();
    },
  };
};
