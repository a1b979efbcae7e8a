// The WebCrypto API keys are the Node ones: same stored digest, so keys verify across runtimes.
import { describe, expect, it } from 'vitest';
import { openDatabase, migrate } from '../index.js';
import { createApiKey, hashApiKey, verifyApiKey } from './api-keys.js';
import { createApiKeyWeb, hashApiKeyWeb, verifyApiKeyWeb } from './api-keys-web.js';

describe('WebCrypto API keys match the Node ones', () => {
  it('hashes a key to the same digest', async () => {
    const key = 'sk_kabcdefghijkl_abcdefghijklmnopqrstuvwxyz234567';
    expect(await hashApiKeyWeb(key)).toBe(hashApiKey(key));
  });

  it('verifies a Node-made key on the web path and a web-made key on the Node path', async () => {
    const database = openDatabase({ url: ':memory:' });
    await migrate(database);
    const node = await createApiKey(database.db, 'acme');
    const web = await createApiKeyWeb(database.db, 'acme', { scopes: ['jobs:read'] });
    expect((await verifyApiKeyWeb(database.db, node.key))?.keyId).toBe(node.id);
    expect((await verifyApiKey(database.db, web.key))?.scopes).toEqual(['jobs:read']);
    // one changed character of the secret verifies nowhere
    const forged = `${web.key.slice(0, -1)}${web.key.endsWith('a') ? 'b' : 'a'}`;
    expect(await verifyApiKeyWeb(database.db, forged)).toBeUndefined();
    await database.close();
  });
});
