// The opaque cursor of a job listing: base64url of `createdAt|id`. Built with web APIs only
// (TextEncoder, btoa/atob): this code also runs in Workers, which have no Node `Buffer` (the
// Workers gateway answered a next page with a 500 when it used one). The text is exactly what
// `Buffer.from(…).toString('base64url')` gave, so cursors handed out before read the same.

/** The position after `row` in a newest-first listing. */
export function encodeJobCursor(row: { createdAt: string; id: string }): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(`${row.createdAt}|${row.id}`))
    binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The position a cursor names, or `undefined` for one that is not ours (start from the top). */
export function decodeJobCursor(cursor: string): { createdAt: string; id: string } | undefined {
  let text: string;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    text = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined; // not base64 at all
  }
  const [createdAt, id] = text.split('|');
  return createdAt && id ? { createdAt, id } : undefined;
}
