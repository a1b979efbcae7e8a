// The built front end (vite build → dist/web), served by the example's own server in production
// mode: files by path, index.html for every other page route (the app routes by URL hash).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export function addStaticFiles(app: Hono, root: string): void {
  const index = join(root, 'index.html');
  if (!existsSync(index)) {
    throw new Error(
      `no built front end at ${root}: run \`npm run build -w @sluice/example-chatbot-admin\``,
    );
  }
  app.get('*', (c, next) => {
    const path = normalize(decodeURIComponent(new URL(c.req.url).pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
    if (path.startsWith('/trpc') || path.startsWith('/v1/') || path.startsWith('/api/'))
      return next();
    const file = join(root, path);
    const hit = file.startsWith(root) && existsSync(file) && statSync(file).isFile() ? file : index;
    const cache = hit === index ? 'no-cache' : 'public, max-age=31536000, immutable';
    return c.body(readFileSync(hit), 200, {
      'content-type': TYPES[extname(hit)] ?? 'application/octet-stream',
      'cache-control': cache,
    });
  });
}
