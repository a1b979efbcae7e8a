// Attempt ids: unique, cheap. One random prefix per process (60 bits, from the contracts' token)
// and a counter: minting one per admitted delivery must not cost a CSPRNG call each (it showed
// in the worker's profile), and uniqueness is all an attempt id needs — the epoch fences.

import { randomToken } from '@sluice/contracts';

const prefix = randomToken().slice(0, 12);
let next = 0;

export function newAttemptId(): string {
  return `${prefix}${(next++).toString(36)}`;
}
