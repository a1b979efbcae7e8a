// Canonical JSON for the idempotency fingerprint: object keys sorted at every level, so equal
// values give equal text whatever their key order. No Node built-in: the Workers gateway hashes
// the same text with WebCrypto (cloudflare/web-crypto.ts).
//
// `canonicalJson` serializes directly. It used to be `JSON.stringify` with a replacer that copied
// every object into a key-sorted one; that cost ~25 µs a submit (row 6 profile). The output is
// byte-identical to that form, quirks included (stored hashes must keep matching):
// input-hash.test.ts compares both on arbitrary values.

const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/** Keys in the order the sorted copy had: array-index keys first (numerically), then sorted. */
function orderedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  const indexes = keys.filter((k) => INDEX_KEY.test(k) && Number(k) < 2 ** 32 - 1);
  if (indexes.length === 0) return keys;
  const rest = keys.filter((k) => !indexes.includes(k));
  return [...indexes.sort((a, b) => Number(a) - Number(b)), ...rest];
}

function write(key: string, input: unknown): string | undefined {
  let value = input;
  if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (k: string) => unknown).call(value, key);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      // What JSON.stringify does.
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        const items: string[] = [];
        for (let i = 0; i < value.length; i++) items.push(write(String(i), value[i]) ?? 'null');
        return `[${items.join(',')}]`;
      }
      const parts: string[] = [];
      for (const k of orderedKeys(value)) {
        // The sorted copy was a plain object: assigning `__proto__` set its prototype instead.
        if (k === '__proto__') continue;
        const text = write(k, (value as Record<string, unknown>)[k]);
        if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      // undefined, functions, symbols: left out of objects, null in arrays.
      return undefined;
  }
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return write('', value) as string;
}
