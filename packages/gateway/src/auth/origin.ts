// The Origin check for WebSocket upgrades (Cross-Site WebSocket Hijacking, OWASP ASVS 13.5.2).
// Browsers always send Origin on a WebSocket handshake; Node clients (`ws`) send none. So: no
// Origin is accepted, an Origin in the allow-list is accepted, a same-origin page (Origin host ==
// Host header) is accepted unless turned off, and every other browser Origin is refused.

export interface OriginPolicy {
  /** Allowed origins, exactly as browsers send them: `https://app.example.com`. */
  readonly allow: readonly string[];
  /** Accept an Origin whose host equals the request's Host header (default true). */
  readonly sameOrigin: boolean;
}

export function createOriginCheck(
  policy: OriginPolicy,
): (origin: string | undefined, host: string | undefined) => boolean {
  const allowed = new Set(policy.allow.map((o) => o.toLowerCase().replace(/\/+$/, '')));
  return (origin, host) => {
    if (origin === undefined || origin === '') return true;
    const normalized = origin.toLowerCase();
    if (allowed.has(normalized)) return true;
    if (!policy.sameOrigin || !host) return false;
    try {
      return new URL(normalized).host === host.toLowerCase();
    } catch {
      return false;
    }
  };
}
