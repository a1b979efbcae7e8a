// The Origin check for WebSocket upgrades (Cross-Site WebSocket Hijacking, OWASP ASVS 13.5.2).
// Browsers always send Origin on a WebSocket handshake; Node clients (`ws`) send none. So: no
// Origin is accepted, an Origin in the allow-list is accepted, and a page served by the gateway
// itself is accepted when its Origin names the scheme the connection speaks (`http` in plain,
// `https` over TLS), the address it actually arrived at (an IP literal, or `localhost` on
// loopback) and its port. Origins are compared as the browser's triple (scheme, host, port), so
// `https://127.0.0.1:3000` is not the plain-HTTP gateway on 127.0.0.1:3000, and an allow-list
// entry `https://app.example.com` matches `https://app.example.com:443` but not `http://…`. The
// Host header is never consulted: under DNS rebinding an attacker's page has Origin == Host
// (`http://evil.example:3000`), and a name is never the local address. Every other browser
// Origin is refused.

export interface OriginPolicy {
  /** Allowed origins, exactly as browsers send them: `https://app.example.com`. */
  readonly allow: readonly string[];
  /** Accept an Origin naming the local address and port the connection came in on (default true). */
  readonly sameOrigin: boolean;
}

/** Where a connection arrived: the socket's local address and port, and whether it is TLS. */
export interface LocalEndpoint {
  address: string | undefined;
  port: number | undefined;
  /** The connection is TLS (its pages are `https:`); default false, plain HTTP. */
  secure?: boolean | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The scheme://host:port triple of a web origin, or undefined for anything else. */
function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function isLocalOrigin(url: URL, local: LocalEndpoint): boolean {
  if (local.address === undefined || local.port === undefined) return false;
  if (url.protocol !== (local.secure ? 'https:' : 'http:')) return false;
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
  // `URL.origin` writes the triple one way: lower case, default port left out.
  const allowed = new Set(
    policy.allow.flatMap((o) => {
      const url = parseOrigin(o);
      return url ? [url.origin] : [];
    }),
  );
  return (origin, local) => {
    if (origin === undefined || origin === '') return true;
    const url = parseOrigin(origin);
    if (!url) return false;
    if (allowed.has(url.origin)) return true;
    return policy.sameOrigin && isLocalOrigin(url, local);
  };
}
