// The web-API cursor reads and writes the same text the Node `Buffer` version did, so a cursor a
// client got before the change still pages on (job-pages-on-workers.test.ts: why it changed).
import { expect, it } from 'vitest';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';

const rows = [
  { createdAt: '2026-12-02T10:00:00.000Z', id: 'v1-abc123' },
  { createdAt: '2026-12-02T10:00:00.001Z', id: 'v2-x' }, // lengths that leave base64 padding
  { createdAt: '2026-12-02T10:00:00.010Z', id: 'v1-ünïcode→' },
];

it('encodes as Buffer base64url did, and decodes both', () => {
  for (const row of rows) {
    const legacy = Buffer.from(`${row.createdAt}|${row.id}`).toString('base64url');
    expect(encodeJobCursor(row)).toBe(legacy);
    expect(decodeJobCursor(legacy)).toEqual(row);
  }
});

it('an unreadable cursor names no position', () => {
  for (const bad of ['garbage', '', '!!!', 'a', encodeJobCursor({ createdAt: 'x', id: '' })])
    expect(decodeJobCursor(bad)).toBeUndefined();
});
