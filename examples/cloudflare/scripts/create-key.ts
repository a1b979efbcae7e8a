// Creates an API key in the Worker's D1 and prints it once (only its sha256 is stored, as the
// gateway's own `createApiKey` does).
//
//   tsx scripts/create-key.ts [tenant] [--remote] [--persist-to <dir>]
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const token = (n: number) => Array.from(randomBytes(n), (b) => ALPHABET[b & 31]).join('');

export function newApiKeyRow(tenantId: string): { key: string; insert: string } {
  const id = `k${token(12)}`;
  const key = `sk_${id}_${token(32)}`;
  const hash = createHash('sha256').update(key).digest('hex');
  const scopes = 'jobs:submit jobs:read';
  const insert =
    'insert into api_keys (id, tenant_id, secret_hash, label, created_at, last_used_at, ' +
    `revoked_at, scopes, expires_at) values ('${id}', '${tenantId}', '${hash}', 'example', ` +
    `'${new Date().toISOString()}', null, null, '${scopes}', null)`;
  return { key, insert };
}

/** Runs `wrangler d1 execute DB` with one statement (local unless `--remote`). */
export function d1Execute(cwd: string, statement: string, extra: readonly string[]): void {
  execFileSync('npx', ['wrangler', 'd1', 'execute', 'DB', '--command', statement, ...extra], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const where = args.includes('--remote') ? ['--remote'] : ['--local'];
  let tenant = 'demo';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--persist-to') where.push('--persist-to', args[++i] as string);
    else if (!args[i]?.startsWith('--')) tenant = args[i] as string;
  }
  const { key, insert } = newApiKeyRow(tenant);
  d1Execute(fileURLToPath(new URL('..', import.meta.url)), insert, where);
  console.log(key);
}
