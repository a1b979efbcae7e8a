// Mounts the UI on a Hono app (the gateway's, same origin: the UI calls /trpc, /v1 and /ws of
// the page's own origin, so no CORS). `/dashboard` redirects to `/dashboard/`, where relative
// asset URLs resolve.
import type { Hono } from 'hono';
import { DEFAULT_WEB_ROOT, loadAssets } from './assets.js';

export interface DashboardOptions {
  /** Where it is served (default `/dashboard`; `/` for a server of its own). */
  path?: string;
  /** The built UI (default this package's dist/web). */
  root?: string;
}

export function normalisePath(path = '/dashboard'): string {
  const trimmed = `/${path.replace(/^\/+|\/+$/g, '')}`;
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new Error(`dashboard path: "${path}" is not a plain URL path`);
  }
  return trimmed;
}

export function mountDashboard(app: Hono, options: DashboardOptions = {}): void {
  const path = normalisePath(options.path);
  const prefix = path === '/' ? '/' : `${path}/`;
  const assets = loadAssets(options.root ?? DEFAULT_WEB_ROOT, prefix);
  if (path !== '/') app.get(path, (c) => c.redirect(prefix, 308));
  app.get(`${prefix}*`, (c) => {
    const relative = decodeURIComponent(new URL(c.req.url).pathname).slice(prefix.length);
    const hit = assets.get(relative);
    return c.body(
      typeof hit.body === 'string' ? hit.body : (hit.body as Uint8Array<ArrayBuffer>),
      200,
      hit.headers,
    );
  });
}
