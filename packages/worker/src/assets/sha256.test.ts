// The pure SHA-256 the asset protocol hashes with in workerd equals node:crypto's, across block
// boundaries and chunkings (a wrong padding or carry shows up at 55/56/64-byte edges).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSha256 } from './sha256.js';

describe('createSha256', () => {
  it('equals node:crypto for sizes around every block edge and any chunking', () => {
    for (const size of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 70_001]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 131 + 7) & 255);
      const want = createHash('sha256').update(bytes).digest('hex');
      for (const step of [1, 7, 64, 4096]) {
        const h = createSha256();
        for (let at = 0; at < size; at += step) h.update(bytes.subarray(at, at + step));
        expect(h.digestHex(), `size ${size} step ${step}`).toBe(want);
      }
    }
  });
});
