// The same app on PostgreSQL + Valkey Streams with the gateway and the worker in separate
// processes (the worker started by the example's own command, `--role worker`, configured by
// environment variables only): a PDF and an XLSX uploaded with the typed client are analysed,
// progress arrives live over the WebSocket, and the provider billed each unit's calls once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient, type JobWatchEvent } from '@sluice/client';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { spawnNode, startRedisServer, type ChildHandle, type RedisServer } from '@sluice/testkit';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jobs } from '../src/jobs.js';
import { billsOf } from '../src/provider/ledger.js';
import { startProvider, type StartedProvider } from '../src/provider/start-provider.js';
import { startApp, type RunningApp } from '../src/server/app.js';
import { makePdf, makeXlsx } from './documents.js';

describe('chatbot admin on PostgreSQL + Valkey Streams, gateway and worker apart', () => {
  let db: TestDatabase;
  let redis: RedisServer;
  let ai: StartedProvider;
  let gateway: RunningApp;
  let worker: ChildHandle;
  const dir = mkdtempSync(join(tmpdir(), 'sluice-chatbot-streams-'));

  beforeAll(async () => {
    [db, redis, ai] = await Promise.all([
      createTestDatabase('postgres'),
      startRedisServer(),
      startProvider({ dataDir: join(dir, 'provider') }),
    ]);
    const runtime = { kind: 'valkey-streams', redisUrl: redis.url } as const;
    gateway = await startApp({
      dataDir: dir,
      database: db.url,
      runtime,
      role: 'gateway',
      aiUrl: ai.url,
    });
    worker = await spawnNode(new URL('../src/server/main.ts', import.meta.url), {
      args: ['--role', 'worker'],
      env: {
        SLUICE_HOME: dir,
        DATABASE_URL: db.url,
        SLUICE_RUNTIME: 'valkey-streams',
        REDIS_URL: redis.url,
        AI_URL: ai.url,
      },
      readyLine: /Chatbot admin worker: valkey-streams runtime, PostgreSQL/,
      readyTimeoutMs: 60_000,
    });
  });

  afterAll(async () => {
    worker?.signal('SIGTERM');
    await worker?.exited;
    await gateway?.close();
    await ai?.stop();
    await redis?.stop();
    await db?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('analyses a PDF and an XLSX live, billing every unit once', async () => {
    const client = createSluiceClient<Jobs>({
      url: gateway.url,
      apiKey: gateway.logins[0]!.apiKey,
      WebSocket,
    });
    try {
      for (const [filename, bytes, units] of [
        ['prices.pdf', await makePdf(), ['page-01', 'page-02']],
        ['shipping.xlsx', await makeXlsx(), ['sheet-01']],
      ] as const) {
        const file = await client.upload(bytes, { filename });
        const job = await client.submit(
          'document.analyze',
          { fileId: file.id, filename },
          { fileIds: [file.id] },
        );
        const events: JobWatchEvent<Jobs['document.analyze']>[] = [];
        for await (const event of job.watch()) events.push(event);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        const done = events.flatMap((e) =>
          e.type === 'progress' && e.data.step === 'done' ? [e.data.label] : [],
        );
        expect(done).toHaveLength(units.length);
        const out = await job.result();
        expect(out.units.map((u) => u.key)).toEqual(units);
        expect(out.tables.length).toBeGreaterThan(0);
        const bills = billsOf(ai.ledger(), job.id);
        expect(bills).toEqual(
          Object.fromEntries(
            units.flatMap((u) => [
              [`classify:${u}`, 1],
              [`intents:${u}`, 1],
            ]),
          ),
        );
      }
    } finally {
      await client.close();
    }
  });
});
