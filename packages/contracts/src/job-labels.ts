// Tags and metadata a submitter puts on a job, so an operator can find it again (`jobs.search`,
// `sluice jobs list --tag x --meta k=v`). Bounded: they are stored on the row and copied into
// index tables, so a submit cannot grow either without limit. Every bound is a zod rule, so a
// refusal names the field (`tags.3`, `metadata.customer`) and nothing is written.

import { z } from 'zod';

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 64;
export const MAX_METADATA_KEYS = 32;
export const MAX_METADATA_KEY_LENGTH = 64;
/** The whole metadata object as JSON text, in bytes (UTF-16 units: a bound, not a measure). */
export const MAX_METADATA_BYTES = 4096;

/** Letters, digits and `._:/=-`, starting with a letter or digit: safe in URLs and flags. */
export const Tag = z
  .string()
  .min(1)
  .max(MAX_TAG_LENGTH)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/=-]*$/, 'not a tag (letters, digits and ._:/=- only)');
export const Tags = z
  .array(Tag)
  .max(MAX_TAGS)
  .refine((tags) => new Set(tags).size === tags.length, 'tags repeat');

export const MetadataKey = z
  .string()
  .min(1)
  .max(MAX_METADATA_KEY_LENGTH)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'not a metadata key (letters, digits and ._- only)');
export const Metadata = z
  .record(MetadataKey, z.json())
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, {
    message: `at most ${MAX_METADATA_KEYS} keys`,
  })
  .refine((m) => JSON.stringify(m).length <= MAX_METADATA_BYTES, {
    message: `at most ${MAX_METADATA_BYTES} bytes as JSON`,
  });
export type Metadata = z.infer<typeof Metadata>;

/**
 * How a metadata value is indexed and matched: a string as itself, anything else as its JSON
 * text (`5`, `true`, `null`, `{"a":1}`). `--meta plan=5` finds `{ plan: 5 }` and `{ plan: '5' }`.
 */
export function metadataValueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
