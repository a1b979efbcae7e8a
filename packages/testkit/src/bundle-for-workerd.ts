// Builds an entry the way wrangler builds a Worker (esbuild, browser platform, the
// `workerd`/`worker` export conditions, `cloudflare:*` left to the runtime) and reads the result
// back, for the tests that prove a Workers entry pulls in nothing from Node: what went in, what
// it imports, the bundle's text and size.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface WorkerdBundle {
  /** Source files that went into the bundle. */
  inputs: string[];
  /** Every import path those files name. */
  imports: string[];
  text: string;
  bytes: number;
}

export async function bundleForWorkerd(entry: URL): Promise<WorkerdBundle> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@sluice/source', 'workerd', 'worker', 'browser'],
    external: ['cloudflare:*'],
    metafile: true,
    logLevel: 'silent',
  });
  return {
    inputs: Object.keys(result.metafile.inputs),
    imports: Object.values(result.metafile.inputs).flatMap((i) => i.imports.map((m) => m.path)),
    text: result.outputFiles[0]?.text ?? '',
    bytes: result.outputFiles[0]?.contents.length ?? 0,
  };
}
