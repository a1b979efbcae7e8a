// The input of `jobs.submit`, as one discriminated union over the registry: a wrong kind, wrong
// input, missing or extra field fails to validate (and, through the client's types, to compile).

import { z } from 'zod';
import type { JobRegistry, inferJobInput } from './define-job.js';

export const IdempotencyKey = z.string().min(1).max(200);
export const FileId = z.string().regex(/^f_[a-z2-7]{26}$/, 'not a file id');
export const FileIds = z.array(FileId).max(100);

export type SubmitInput<R extends JobRegistry> = {
  [K in Extract<keyof R, string>]: {
    kind: K;
    input: inferJobInput<R[K]>;
    idempotencyKey?: string | undefined;
    fileIds?: string[] | undefined;
  };
}[Extract<keyof R, string>];

function member(kind: string, input: z.core.$ZodType) {
  return z
    .object({
      kind: z.literal(kind),
      input: input as z.ZodType,
      idempotencyKey: IdempotencyKey.optional(),
      fileIds: FileIds.optional(),
    })
    .strict();
}

export function createSubmitSchema<R extends JobRegistry>(registry: R): z.ZodType<SubmitInput<R>> {
  const members = Object.values(registry).map((def) => member(def.kind, def.input));
  const [first, ...rest] = members;
  if (!first) throw new Error('createSubmitSchema: the registry has no job kinds');
  // zod 4 wants a non-empty tuple; the mapped members are one (STACK.md).
  return z.discriminatedUnion('kind', [first, ...rest]) as unknown as z.ZodType<SubmitInput<R>>;
}
