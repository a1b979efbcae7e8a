// `npm run example:chatbot` (from the repo root): the fake AI provider process, the gateway with
// the example's routes and the built front end, and a worker, on the embedded default under
// .sluice/chatbot. `--dev` serves the front end from vite's dev server instead (hot reload),
// proxying the API to the gateway. Prints the URL and the two demo logins. The provider keeps its
// ledger and intent jobs under the data folder and ends with this process, so a restart after a
// crash (a SIGKILL) finds the provider's jobs where the worker's ledger says they are.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startProvider } from '../provider/start-provider.js';
import { startApp, type Runtime } from './app.js';
import { buildWeb } from './build-web.js';

const { values } = parseArgs({
  options: { dev: { type: 'boolean' }, port: { type: 'string' }, role: { type: 'string' } },
});
const role = (values.role ?? 'all') as 'all' | 'gateway' | 'worker';
if (!['all', 'gateway', 'worker'].includes(role))
  throw new Error('--role is all, gateway or worker');
const runtime: Runtime =
  process.env.SLUICE_RUNTIME === 'valkey-streams'
    ? { kind: 'valkey-streams', redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }
    : { kind: 'embedded' };
const exampleDir = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = resolve(process.env.SLUICE_HOME ?? '.sluice/chatbot');
mkdirSync(dataDir, { recursive: true });
const port = Number(values.port ?? process.env.PORT ?? 3000);
// The same variable `sluice gateway` reads: the share of new documents analysed by v2.
const rollout = process.env.SLUICE_ROLLOUT_DOCUMENT_ANALYZE;
const rolloutPercent = rollout === undefined || rollout === '' ? undefined : Number(rollout);

// A provider already running elsewhere (AI_URL, e.g. for separate gateway and worker processes),
// or our own.
const ai = process.env.AI_URL
  ? { url: process.env.AI_URL, pid: undefined, ledgerPath: '(its own)', stop: async () => {} }
  : await startProvider({ dataDir: join(dataDir, 'provider') });
let webRoot: string | undefined;
if (!values.dev && role !== 'worker') webRoot = await buildWeb(exampleDir);
const app = await startApp({
  dataDir,
  runtime,
  role,
  ...(process.env.DATABASE_URL ? { database: process.env.DATABASE_URL } : {}),
  aiUrl: ai.url,
  ...(rolloutPercent === undefined ? {} : { rolloutPercent }),
  port: values.dev ? 0 : port,
  ...(webRoot ? { webRoot } : {}),
});
let url = app.url;
let closeVite = async () => {};
if (values.dev) {
  const { createServer } = await import('vite');
  const target = app.url;
  const vite = await createServer({
    configFile: join(exampleDir, 'vite.config.ts'),
    server: {
      port,
      proxy: {
        // Regexes, not prefixes: a prefix `/api` would also take the app's own `/api.ts`.
        '^/(trpc|v1|api)/': target,
        '^/ws(\\?|$)': { target, ws: true },
      },
    },
  });
  await vite.listen();
  url = vite.resolvedUrls?.local[0]?.replace(/\/$/, '') ?? `http://localhost:${port}`;
  closeVite = () => vite.close();
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const where = process.env.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
if (role === 'worker') say(`\nChatbot admin worker: ${runtime.kind} runtime, ${where}`);
else {
  say(
    `\nChatbot admin: ${url} (${runtime.kind} runtime, ${where}${role === 'gateway' ? ', no worker here' : ''})\n`,
  );
  say('Demo logins (paste one on the login page):');
  for (const login of app.logins) {
    say(`  ${login.tenant.padEnd(7)} ${login.apiKey}${login.operator ? '  (operator)' : ''}`);
  }
}
const aiPid = ai.pid === undefined ? '' : `pid ${ai.pid}, `;
say(
  `\nData in ${dataDir}; fake AI provider ${ai.url} (${aiPid}ledger ${ai.ledgerPath}). Ctrl-C stops.`,
);

await new Promise<void>((r) => {
  process.once('SIGINT', () => r());
  process.once('SIGTERM', () => r());
});
await closeVite();
await app.close();
await ai.stop();
