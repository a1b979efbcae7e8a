import { describe, expect, it } from 'vitest';
import {
  isBusyGroupError,
  isNoGroupError,
  parseFlatRecords,
  parseXAutoClaim,
  parseXPendingRange,
  parseXPendingSummary,
  parseXRead,
  streamIdTime,
} from './replies.js';

// Reply shapes as iovalkey 0.4 returned them from Redis 7.0.15, recorded from a real server: the
// client hands back raw nested arrays whose shape differs per command and per edge case.
describe('stream reply parsers', () => {
  it('XREADGROUP: entries, trimmed entries and block timeouts', () => {
    expect(parseXRead(null)).toEqual([]);
    expect(
      parseXRead([
        [
          's',
          [
            ['1-0', ['jobId', 'a']],
            ['2-0', null],
          ],
        ],
      ]),
    ).toEqual([
      {
        stream: 's',
        entries: [
          { id: '1-0', fields: ['jobId', 'a'] },
          { id: '2-0', fields: null },
        ],
      },
    ]);
    expect(() => parseXRead('x')).toThrowError(/unexpected XREAD reply/);
    expect(() => parseXRead([['s', [['1-0']]]])).toThrowError(/XREAD/);
  });
  it('XAUTOCLAIM: cursor, entries and the deleted ids of Redis 7', () => {
    expect(parseXAutoClaim(['0-0', [['1-0', ['a', 'b']]], ['2-0']])).toEqual({
      next: '0-0',
      entries: [{ id: '1-0', fields: ['a', 'b'] }],
      deleted: ['2-0'],
    });
    expect(parseXAutoClaim(['5-0', []])).toEqual({ next: '5-0', entries: [], deleted: [] });
    expect(() => parseXAutoClaim(['0-0'])).toThrowError();
  });
  it('XPENDING summary (string counts) and range', () => {
    expect(
      parseXPendingSummary([
        3,
        '1-0',
        '3-0',
        [
          ['c1', '2'],
          ['c2', '1'],
        ],
      ]),
    ).toEqual({
      count: 3,
      minId: '1-0',
      maxId: '3-0',
      consumers: [
        { name: 'c1', pending: 2 },
        { name: 'c2', pending: 1 },
      ],
    });
    expect(parseXPendingSummary([0, null, null, null])).toEqual({
      count: 0,
      minId: null,
      maxId: null,
      consumers: [],
    });
    expect(parseXPendingRange([['1-0', 'c1', 1500, 2]])).toEqual([
      { id: '1-0', consumer: 'c1', idleMs: 1500, deliveries: 2 },
    ]);
    expect(() => parseXPendingRange([['1-0']])).toThrowError();
  });
  it('XINFO flat records', () => {
    expect(parseFlatRecords([['name', 'g', 'consumers', 3, 'pending', 2]])).toEqual([
      { name: 'g', consumers: 3, pending: 2 },
    ]);
    expect(() => parseFlatRecords([['name']])).toThrowError();
  });
  it('ids and errors', () => {
    expect(streamIdTime('1700000000000-3')).toBe(1700000000000);
    expect(streamIdTime('x-1')).toBeNaN();
    expect(isNoGroupError(new Error("NOGROUP No such key 'jobs' or consumer group 'g'"))).toBe(
      true,
    );
    expect(isNoGroupError(new Error('ERR other'))).toBe(false);
    expect(isBusyGroupError(new Error('BUSYGROUP Consumer Group name already exists'))).toBe(true);
    expect(isBusyGroupError('BUSYGROUP')).toBe(false);
  });
});
