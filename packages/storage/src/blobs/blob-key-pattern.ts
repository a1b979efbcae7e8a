// The shape every blob key must have, checked by every store before it touches its backend.
// Runtime-neutral (no Node module): the R2 store runs it inside workerd.
import { SluiceError } from '@sluice/contracts';

/** Allowed shape of any key: lowercase segments, no `..`, no leading slash. */
export const BLOB_KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function assertBlobKey(key: string): string {
  if (
    key.length > 512 ||
    !BLOB_KEY_PATTERN.test(key) ||
    key.split('/').some((s) => s === '.' || s === '..')
  ) {
    throw new SluiceError('BAD_REQUEST', `invalid blob key "${key}"`);
  }
  return key;
}
