// The Origin check for WebSocket upgrades (Cross-Site WebSocket Hijacking, OWASP ASVS 13.5.2).
// Browsers always send Origin on a WebSocket handshake; Node clients (`ws`) send none. So: no
// Origin is accepted, an Origin in the allow-list is accepted, and a page served by the gateway
// itself is accepted when its Origin names the address the connection actually arrived at (an
// IP literal, or `localhost` on loopback) and its port. The Host header is never consulted: under
// DNS rebinding an attacker's page has Origin == Host (`http://evil.example:3000`), and a name
// is never the local address. Every other browser Origin is refused.

export interface OriginPolicy {
  /** Allowed origins, exactly as browsers send them: `https://app.example.com`. */
  readonly allow: readonly string[];
  /** Accept an Origin naming the local address and port the connection came in on (default true). */
  readonly sameOrigin: boolean;
}

/** Where a connection arrived: the socket's local address and port. */
export interface LocalEndpoint {
  address: string | undefined;
  port: number | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isLocalOrigin(url: URL, local: LocalEndpoint): boolean {
  if (local.address === undefined || local.port === undefined) return false;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (port !== local.port) return false;
  const host = stripBrackets(url.hostname);
  const address = local.address.replace(/^::ffff:/, '');
  if (host === address) return true;
  return host === 'localhost' && LOOPBACK.has(local.address);
}

export function createOriginCheck(
  policy: OriginPolicy,
): (origin: string | undefined, local: LocalEndpoint) => boolean {
  const allowed = new Set(policy.allow.map((o) => o.toLowerCase().replace(/\/+$/, '')));
  return (origin, local) => {
    if (origin === undefined || origin === '') return true;
    const normalized = origin.toLowerCase();
    if (allowed.has(normalized)) return true;
    if (!policy.sameOrigin) return false;
    try {
      return isLocalOrigin(new URL(normalized), local);
    } catch {
      return false;
    }
  };
}
