// The stored form of an approval token: its sha256, hex (WebCrypto, so the same code runs on
// Node and Workers; the worker hashes the same way when it stores a new token).

export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
