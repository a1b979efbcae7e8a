// The shared log shape on pino: level label, ISO time, service, message and fields on one JSON
// line; LOG_LEVEL respected; credentials, inputs and provider request bodies never written.
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseLogLevel } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { createCoalescingDestination } from './log-destination.js';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, destination };
}

describe('worker logger', () => {
  it('writes one JSON line per call in the shared shape', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    logger.info('job state', {
      jobId: 'v1-abc',
      kind: 'demo.x',
      attempt: 1,
      error: new TypeError('boom'),
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      service: 'worker',
      msg: 'job state',
      jobId: 'v1-abc',
      kind: 'demo.x',
      attempt: 1,
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(lines[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('redacts credentials, inputs and provider request bodies', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    logger.warn('call', {
      input: { ssn: '123' },
      apiKey: 'sk_live_1',
      job: { input: { ssn: '123' } },
      headers: { authorization: 'Bearer sk_live_2', 'x-api-key': 'sk_live_3', accept: 'json' },
      request: { url: 'https://p.example/v1', body: { prompt: 'secret' } },
    });
    const text = JSON.stringify(lines);
    for (const secret of ['123', 'sk_live_1', 'sk_live_2', 'sk_live_3', 'prompt']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({
      headers: { accept: 'json' },
      request: { url: 'https://p.example/v1', body: '[redacted]' },
    });
  });

  it('redacts one object down too, and never changes the fields it was given', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    const fields = {
      call: { token: 'tk_1', headers: { cookie: 'c_2', accept: 'json' }, request: { body: 'b_3' } },
      list: [{ password: 'pw_4' }],
      plain: 'kept',
    };
    const before = JSON.stringify(fields);
    logger.info('nested', fields);
    expect(JSON.stringify(fields)).toBe(before);
    const text = JSON.stringify(lines);
    for (const secret of ['tk_1', 'c_2', 'b_3']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      call: { token: '[redacted]', headers: { cookie: '[redacted]', accept: 'json' } },
      plain: 'kept',
    });
  });

  it('honours the level: below it nothing is written and isLevelEnabled says so', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'warn', destination });
    logger.info('quiet');
    logger.error('loud');
    expect(lines.map((l) => l.msg)).toEqual(['loud']);
    expect(logger.isLevelEnabled?.('info')).toBe(false);
  });

  it('reads LOG_LEVEL (default info) and refuses an unknown one', () => {
    expect(parseLogLevel(undefined)).toBe('info');
    expect(parseLogLevel(' DEBUG ')).toBe('debug');
    expect(() => parseLogLevel('verbose')).toThrow(/LOG_LEVEL/);
  });

  it('stderr lines of one turn go out as one write, in order, before the next turn', async () => {
    const writes: string[] = [];
    const destination = createCoalescingDestination({ write: (chunk) => writes.push(chunk) });
    const logger = createLogger({ level: 'info', destination });
    for (const n of [1, 2, 3]) logger.info('job state', { n });
    expect(writes).toHaveLength(0);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    const lines = (writes[0] as string)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual([1, 2, 3]);
  });

  it('an exit right after logging still writes every line (flushed on exit)', () => {
    const script = `
      import { createLogger } from ${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))};
      const logger = createLogger({ level: 'info' });
      logger.info('before the crash', { n: 1 });
      logger.info('before the crash', { n: 2 });
      process.exit(3); // no microtask runs after this: only the exit hook can write them`;
    const child = spawnSync(
      process.execPath,
      ['--conditions=@sluice/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.status).toBe(3);
    const logged = child.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; n: number });
    expect(logged.map((l) => l.n)).toEqual([1, 2]);
  });
});
