// The job state log of gateways and workers: every stored change is a `debug` line, and `info`
// gets one summary line per period counting the changes by state entered (none while idle, the
// rest on close; a change that finds the period over writes it first where no timer runs).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createJobStateLog, type LoggedEvent } from './job-state-log.js';
import type { LogFields, LogLevel, SluiceLogger } from './logging.js';

interface Line {
  level: 'debug' | 'info';
  message: string;
  fields: LogFields | undefined;
}

function spyLogger(level: 'debug' | 'info' | 'warn'): { logger: SluiceLogger; lines: Line[] } {
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
function state(jobId: string, from: string | null, to: string): LoggedEvent {
  seq++;
  return {
    kind: 'k.noop',
    event: { type: 'state', jobId, seq, at: new Date().toISOString(), from, to, attempt: 1 },
  } as LoggedEvent;
}

const progress = {
  kind: 'k.noop',
  event: { type: 'progress', jobId: 'v1-a', seq: 3, at: '2026-12-06T00:00:00.000Z', data: 1 },
} as LoggedEvent;

describe('job state log', () => {
  it('writes every stored change at debug, with id, kind and states', () => {
    const { logger, lines } = spyLogger('debug');
    const log = createJobStateLog(logger, 60_000);
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
    const log = createJobStateLog(logger, 40);
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
    const log = createJobStateLog(logger, 10);
    log.log([state('v1-a', 'queued', 'running')]);
    await sleep(40);
    log.close();
    expect(lines).toEqual([]);
  });

  it('a change that finds the period over writes the summary first (no timer needed)', () => {
    const { logger, lines } = spyLogger('info');
    const log = createJobStateLog(logger, 20);
    log.log([state('v1-a', 'queued', 'running')]);
    // Synchronous: the period's timer cannot fire before the next change.
    const until = Date.now() + 30;
    while (Date.now() < until);
    log.log([state('v1-a', 'running', 'succeeded')]);
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'job states',
        fields: expect.objectContaining({ changes: 1, running: 1 }),
      },
    ]);
    log.close();
    expect(lines[1]?.fields).toEqual(expect.objectContaining({ changes: 1, succeeded: 1 }));
  });
});
