// The gateway's job state log: a submit's stored changes (accepted, then queued) are `debug`
// lines in the worker's shape; at `info` there is no line per change, only the summary counting
// changes by state entered, written at the latest when the gateway closes.
import type { LogFields, LogLevel } from '@sluice/contracts';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway } from '../testing/fixture.js';
import type { GatewayLogger } from './logger.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('sqlite');
});
afterAll(async () => {
  await db?.dispose();
});

interface Line {
  level: string;
  message: string;
  fields: LogFields | undefined;
}
function spyLogger(level: LogLevel): { logger: GatewayLogger; lines: Line[] } {
  const order: LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
  const lines: Line[] = [];
  const at = (l: string) => (message: string, fields?: LogFields) =>
    void lines.push({ level: l, message, fields });
  return {
    lines,
    logger: {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      isLevelEnabled: (l) => order.indexOf(l) >= order.indexOf(level),
    },
  };
}

async function submitOne(level: LogLevel) {
  const spy = spyLogger(level);
  const f = await startGateway(db, { logger: spy.logger });
  const { id } = await f
    .http(f.keyA)
    .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'x' } });
  await f.close();
  return { id, lines: spy.lines.filter((l) => l.message.startsWith('job state')) };
}

it('at debug: one job state line per stored change of a submit, then the summary', async () => {
  const { id, lines } = await submitOne('debug');
  expect(lines.filter((l) => l.message === 'job state')).toEqual([
    {
      level: 'debug',
      message: 'job state',
      fields: expect.objectContaining({ jobId: id, kind: 'demo.echo', from: null, to: 'accepted' }),
    },
    {
      level: 'debug',
      message: 'job state',
      fields: expect.objectContaining({ jobId: id, from: 'accepted', to: 'queued' }),
    },
  ]);
});

it('at info: no line per change; the summary counts them by state entered', async () => {
  const { lines } = await submitOne('info');
  expect(lines).toEqual([
    {
      level: 'info',
      message: 'job states',
      fields: expect.objectContaining({ changes: 2, accepted: 1, queued: 1 }),
    },
  ]);
});
