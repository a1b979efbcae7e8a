// The worker's job state log: every stored change is a `debug` line, and `info` gets one summary
// line per period counting the changes by state entered (none while idle, the rest on close).
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogLevel } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage';
import { describe, expect, it } from 'vitest';
import type { LogFields, WorkerLogger } from '../logger.js';
import { createJobStateLog } from './log-job-states.js';

interface Line {
  level: 'debug' | 'info';
  message: string;
  fields: LogFields | undefined;
}

function spyLogger(level: 'debug' | 'info' | 'warn'): { logger: WorkerLogger; lines: Line[] } {
  const lines: Line[] = [];
  const order: LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
  return {
    lines,
    logger: {
      debug: (message, fields) => lines.push({ level: 'debug', message, fields }),
      info: (message, fields) => lines.push({ level: 'info', message, fields }),
      warn: () => {},
      error: () => {},
      isLevelEnabled: (l) => order.indexOf(l) >= order.indexOf(level),
    },
  };
}

let seq = 0;
function state(jobId: string, from: string | null, to: string): StoredEvent {
  seq++;
  return {
    id: seq,
    tenantId: 't',
    kind: 'k.noop',
    event: { type: 'state', jobId, seq, at: new Date().toISOString(), from, to, attempt: 1 },
  } as StoredEvent;
}

const noJobs = { jobOf: () => undefined };
const progress = {
  id: 0,
  tenantId: 't',
  kind: 'k.noop',
  event: { type: 'progress', jobId: 'v1-a', seq: 3, at: '2026-12-06T00:00:00.000Z', data: 1 },
} as StoredEvent;

describe('job state log', () => {
  it('writes every stored change at debug, with id, kind and states', () => {
    const { logger, lines } = spyLogger('debug');
    const log = createJobStateLog(logger, noJobs, 60_000);
    log.log([state('v1-a', 'queued', 'running'), progress, state('v1-a', 'running', 'succeeded')]);
    expect(lines).toEqual([
      {
        level: 'debug',
        message: 'job state',
        fields: expect.objectContaining({
          jobId: 'v1-a',
          kind: 'k.noop',
          from: 'queued',
          to: 'running',
        }),
      },
      {
        level: 'debug',
        message: 'job state',
        fields: expect.objectContaining({ jobId: 'v1-a', from: 'running', to: 'succeeded' }),
      },
    ]);
    log.close();
    expect(lines.at(-1)).toEqual({
      level: 'info',
      message: 'job states',
      fields: expect.objectContaining({ changes: 2, running: 1, succeeded: 1 }),
    });
  });

  it('at info: no line per change, one summary per period counting by state entered', async () => {
    const { logger, lines } = spyLogger('info');
    const log = createJobStateLog(logger, noJobs, 40);
    log.log([state('v1-a', 'queued', 'running'), state('v1-b', 'queued', 'running')]);
    log.log([state('v1-a', 'running', 'succeeded'), state('v1-b', 'running', 'queued')]);
    expect(lines).toEqual([]);
    await sleep(120);
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'job states',
        fields: expect.objectContaining({ changes: 4, running: 2, succeeded: 1, queued: 1 }),
      },
    ]);
    // Idle: no further summary; the next change opens a new period, its count alone.
    await sleep(120);
    expect(lines).toHaveLength(1);
    log.log([state('v1-c', 'queued', 'running')]);
    log.close();
    expect(lines).toHaveLength(2);
    expect(lines[1]?.fields).toEqual(expect.objectContaining({ changes: 1, running: 1 }));
    expect(lines[1]?.fields).not.toHaveProperty('succeeded');
    log.close(); // nothing new: no empty line
    expect(lines).toHaveLength(2);
  });

  it('writes nothing when info is off', async () => {
    const { logger, lines } = spyLogger('warn');
    const log = createJobStateLog(logger, noJobs, 10);
    log.log([state('v1-a', 'queued', 'running')]);
    await sleep(40);
    log.close();
    expect(lines).toEqual([]);
  });
});
