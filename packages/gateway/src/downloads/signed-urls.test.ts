import { expect, it } from 'vitest';
import { createUrlSigner } from './signed-urls.js';

const SECRET = 'x'.repeat(32);

it('a token opens its own path, for its tenant, until it expires', () => {
  let t = 1_000_000;
  const signer = createUrlSigner(SECRET, () => t);
  const { token, expiresAt } = signer.sign('/v1/files/f_a', 'acme', 60);
  expect(expiresAt.getTime()).toBe(1_000_000 + 60_000);
  expect(signer.verify('/v1/files/f_a', token)).toBe('acme');
  expect(signer.verify('/v1/files/f_b', token)).toBeUndefined();
  t += 60_000;
  expect(signer.verify('/v1/files/f_a', token)).toBeUndefined();
});

it('refuses forged, altered and foreign tokens', () => {
  const signer = createUrlSigner(SECRET);
  const { token } = signer.sign('/v1/files/f_a', 'acme', 60);
  const other = createUrlSigner('y'.repeat(32));
  expect(other.verify('/v1/files/f_a', token)).toBeUndefined();
  expect(signer.verify('/v1/files/f_a', token.replace('.acme.', '.globex.'))).toBeUndefined();
  const [v, t, exp, sig] = token.split('.') as [string, string, string, string];
  expect(
    signer.verify('/v1/files/f_a', [v, t, String(Number(exp) + 1000), sig].join('.')),
  ).toBeUndefined();
  for (const bad of ['', 'v1', 'v1.acme.1.x', `${token}x`, token.toUpperCase()])
    expect(signer.verify('/v1/files/f_a', bad)).toBeUndefined();
  // Every other spelling of the last character (base64's spare bits) is refused too.
  const last = sig.at(-1)!;
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
    if (c !== last)
      expect(signer.verify('/v1/files/f_a', `${token.slice(0, -1)}${c}`)).toBeUndefined();
  }
  expect(() => createUrlSigner('short')).toThrow();
});
