// `sluice keys create --tenant <name> [--scope jobs:submit,jobs:read] [--expires 30d]` prints the
// key once; only its hash is stored. Without --scope a key may submit and read jobs only
// (least privilege): review decisions, dead-letter requeues and /metrics need their own scopes.
import { API_KEY_SCOPES, isApiKeyScope, SluiceError, type ApiKeyScope } from '@sluice/contracts';
import { userInfo } from 'node:os';
import {
  appendAudit,
  createApiKey,
  listApiKeys,
  migrate,
  revokeApiKey,
  writeTogether,
} from '@sluice/storage';
import type { Settings } from '../define-config.js';
import { openCliDatabase } from '../open-cli-database.js';

export interface KeysArgs {
  action: string | undefined;
  tenant?: string | undefined;
  label?: string | undefined;
  id?: string | undefined;
  /** Comma- or space-separated scopes (create). */
  scope?: string | undefined;
  /** `30d`, `12h`, `90m` or an ISO date (create). */
  expires?: string | undefined;
}

export const DEFAULT_CLI_SCOPES: readonly ApiKeyScope[] = ['jobs:submit', 'jobs:read'];

export function parseScopeList(raw: string | undefined): ApiKeyScope[] {
  if (raw === undefined) return [...DEFAULT_CLI_SCOPES];
  const names = raw.split(/[\s,]+/).filter((n) => n !== '');
  const bad = names.filter((n) => !isApiKeyScope(n));
  if (bad.length > 0 || names.length === 0) {
    throw new SluiceError(
      'BAD_REQUEST',
      `unknown scope "${bad.join(', ') || raw}": use ${API_KEY_SCOPES.join(', ')}`,
    );
  }
  return names as ApiKeyScope[];
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--expires`: a duration from now (`30d`, `12h`, `90m`) or an absolute ISO date. */
export function parseExpiry(raw: string | undefined, now = Date.now()): Date | undefined {
  if (raw === undefined) return undefined;
  const duration = /^(\d{1,6})([mhd])$/.exec(raw.trim());
  const at = duration
    ? new Date(now + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS])
    : new Date(raw);
  if (Number.isNaN(at.getTime()) || at.getTime() <= now) {
    throw new SluiceError(
      'BAD_REQUEST',
      `--expires "${raw}": give a future ISO date or a duration like 30d, 12h, 90m`,
    );
  }
  return at;
}

/**
 * Who ran the command, for the audit log: the CLI works on the database itself, with no API key,
 * so the operating-system user is the best name there is.
 */
function cliActor(): Record<string, string> {
  try {
    return { via: 'cli', user: userInfo().username };
  } catch {
    return { via: 'cli' };
  }
}

export async function runKeys(
  settings: Settings,
  args: KeysArgs,
  out: (line: string) => void,
): Promise<void> {
  const database = await openCliDatabase(settings, out);
  try {
    await migrate(database);
    switch (args.action) {
      case 'create': {
        if (!args.tenant) throw new SluiceError('BAD_REQUEST', 'keys create needs --tenant <name>');
        const scopes = parseScopeList(args.scope);
        const expiresAt = parseExpiry(args.expires);
        const tenant = args.tenant;
        // The key and its audit entry together: neither is kept without the other.
        const key = await writeTogether(database, async (tx) => {
          const created = await createApiKey(tx, tenant, { label: args.label, scopes, expiresAt });
          await appendAudit(tx, [
            {
              tenantId: created.tenantId,
              keyId: null,
              action: 'key.create',
              target: created.id,
              note: null,
              details: { ...cliActor(), label: args.label ?? null, scopes },
            },
          ]);
          return created;
        });
        out(
          `created key ${key.id} for tenant ${key.tenantId} (scopes ${scopes.join(' ')}${expiresAt ? `, expires ${expiresAt.toISOString()}` : ''}); it is shown only this once:`,
        );
        out(key.key);
        return;
      }
      case 'list': {
        for (const k of await listApiKeys(database.db, args.tenant)) {
          out(
            [
              k.id,
              k.tenantId,
              k.label ?? '',
              k.scopes.join(' '),
              `created ${k.createdAt}`,
              `last used ${k.lastUsedAt ?? 'never'}`,
              ...(k.expiresAt ? [`expires ${k.expiresAt}`] : []),
              ...(k.revokedAt ? [`revoked ${k.revokedAt}`] : []),
            ].join('\t'),
          );
        }
        return;
      }
      case 'revoke': {
        if (!args.id) throw new SluiceError('BAD_REQUEST', 'keys revoke needs a key id');
        const id = args.id;
        const revoked = await writeTogether(database, async (tx) => {
          if (!(await revokeApiKey(tx, id))) return false;
          const owner = await tx
            .selectFrom('api_keys')
            .select(['tenant_id'])
            .where('id', '=', id)
            .executeTakeFirst();
          await appendAudit(tx, [
            {
              tenantId: owner?.tenant_id ?? '-',
              keyId: null,
              action: 'key.revoke',
              target: id,
              note: null,
              details: cliActor(),
            },
          ]);
          return true;
        });
        out(revoked ? `revoked ${args.id}` : `no active key ${args.id}`);
        return;
      }
      default:
        throw new SluiceError(
          'BAD_REQUEST',
          'usage: sluice keys create --tenant <name> [--label <text>] [--scope <list>] [--expires <when>] | keys list [--tenant <name>] | keys revoke <id>',
        );
    }
  } finally {
    await database.close();
  }
}
