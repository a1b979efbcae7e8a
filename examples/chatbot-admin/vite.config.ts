// The admin front end: React on Vite. Workspace packages resolve to their sources (the
// `@sluice/source` condition), so the app needs no package build first.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: new URL('./src/web', import.meta.url).pathname,
  plugins: [react()],
  resolve: { conditions: ['@sluice/source', 'browser', 'module', 'import'] },
  build: { outDir: new URL('./dist/web', import.meta.url).pathname, emptyOutDir: true },
});
