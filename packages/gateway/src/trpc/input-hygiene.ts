// The one input-hygiene check of every tRPC procedure, before any schema parses the input:
// nesting deeper than the limit (JSON.parse is iterative, but zod, hashing and JSON.stringify
// recurse: ~5,000 levels overflowed the stack) and strings a database cannot store the same on
// every dialect (NUL, which PostgreSQL text and jsonb refuse; lone surrogates, which PostgreSQL
// turns into errors or collisions) are a 400, the same answer on SQLite and PostgreSQL. The walk
// is iterative and stops at the depth limit, so a hostile input cannot overflow it either.

// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` is refused, or undefined when it is fine. */
export function inputProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return 'strings may not contain NUL or unpaired surrogates';
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return `input nests deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(v)) {
      if (UNSTORABLE.test(key)) return 'strings may not contain NUL or unpaired surrogates';
      stack.push({ value: item, depth: depth + 1 });
    }
  }
  return undefined;
}
