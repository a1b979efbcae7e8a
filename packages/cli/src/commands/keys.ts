// `sluice keys create --tenant <name>` prints the key once; only its hash is stored.
import { SluiceError } from '@sluice/contracts';
import { createApiKey, listApiKeys, migrate, openDatabase, revokeApiKey } from '@sluice/storage';
import type { Settings } from '../define-config.js';

export interface KeysArgs {
  action: string | undefined;
  tenant?: string | undefined;
  label?: string | undefined;
  id?: string | undefined;
}

export async function runKeys(
  settings: Settings,
  args: KeysArgs,
  out: (line: string) => void,
): Promise<void> {
  const database = openDatabase({ url: settings.database });
  try {
    await migrate(database);
    switch (args.action) {
      case 'create': {
        if (!args.tenant) throw new SluiceError('BAD_REQUEST', 'keys create needs --tenant <name>');
        const key = await createApiKey(database.db, args.tenant, args.label);
        out(`created key ${key.id} for tenant ${key.tenantId}; it is shown only this once:`);
        out(key.key);
        return;
      }
      case 'list': {
        for (const k of await listApiKeys(database.db, args.tenant)) {
          out(
            `${k.id}\t${k.tenantId}\t${k.label ?? ''}\tcreated ${k.createdAt}${k.revokedAt ? `\trevoked ${k.revokedAt}` : ''}`,
          );
        }
        return;
      }
      case 'revoke': {
        if (!args.id) throw new SluiceError('BAD_REQUEST', 'keys revoke needs a key id');
        out(
          (await revokeApiKey(database.db, args.id))
            ? `revoked ${args.id}`
            : `no active key ${args.id}`,
        );
        return;
      }
      default:
        throw new SluiceError(
          'BAD_REQUEST',
          'usage: sluice keys create --tenant <name> [--label <text>] | keys list [--tenant <name>] | keys revoke <id>',
        );
    }
  } finally {
    await database.close();
  }
}
