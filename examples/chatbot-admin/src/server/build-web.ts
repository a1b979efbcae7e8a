// Builds the front end for production (vite build → dist/web) and returns where it is.
import { join } from 'node:path';
import { build } from 'vite';

export async function buildWeb(exampleDir: string): Promise<string> {
  await build({ configFile: join(exampleDir, 'vite.config.ts'), logLevel: 'warn' });
  return join(exampleDir, 'dist/web');
}
