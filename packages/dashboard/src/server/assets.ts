// The built UI (dist/web) as HTTP responses: the right content type per file, hashed assets
// cached for a year (their name changes with their content), index.html never cached and given a
// <base href> of the mount path, so relative asset URLs resolve under any path.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Where `vite build` writes the UI; the same from src/server and dist/server. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Whether `root` holds a built UI (a checkout where `npm run build` never ran has none). */
export function isDashboardBuilt(root: string = DEFAULT_WEB_ROOT): boolean {
  return existsSync(join(root, 'index.html'));
}

export interface AssetResponse {
  body: Uint8Array | string;
  headers: Record<string, string>;
}

export interface Assets {
  /** The file under the mount path (`assets/index-abc.js`), or index.html for any other path. */
  get(relativePath: string): AssetResponse;
}

export function loadAssets(root: string, basePath: string): Assets {
  const rootDir = resolve(root);
  const indexFile = join(rootDir, 'index.html');
  if (!existsSync(indexFile)) {
    throw new Error(`no built dashboard at ${rootDir}: run \`npm run build -w @sluice/dashboard\``);
  }
  const base = basePath.endsWith('/') ? basePath : `${basePath}/`;
  const html = readFileSync(indexFile, 'utf8').replace(
    '<head>',
    `<head>\n    <base href="${base.replace(/"/g, '&quot;')}" />`,
  );
  const index: AssetResponse = {
    body: html,
    headers: { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' },
  };
  return {
    get(relativePath) {
      const file = resolve(rootDir, `.${sep}${relativePath}`);
      // Outside the root (../), a folder or nothing: the app's page (it routes by URL hash).
      if (!file.startsWith(rootDir + sep) || file === indexFile) return index;
      if (!existsSync(file) || !statSync(file).isFile()) return index;
      const hashed = relativePath.startsWith('assets/');
      return {
        body: readFileSync(file),
        headers: {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
          'x-content-type-options': 'nosniff',
        },
      };
    },
  };
}
