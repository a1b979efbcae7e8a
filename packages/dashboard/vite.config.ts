// The operator UI: React on Vite, built to static files (dist/web) with relative asset URLs, so
// one build serves under any mount path (the server writes a <base> into index.html). Workspace
// packages resolve to their sources (the `@sluice/source` condition): no package build first.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: new URL('./src/web', import.meta.url).pathname,
  base: './',
  plugins: [react()],
  resolve: { conditions: ['@sluice/source', 'browser', 'module', 'import'] },
  build: {
    outDir: new URL('./dist/web', import.meta.url).pathname,
    emptyOutDir: true,
    // No source maps: the published package ships the assets only.
    sourcemap: false,
  },
});
