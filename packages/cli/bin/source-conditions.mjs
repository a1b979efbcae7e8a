// A module resolve hook for a checkout of this repository: resolves the workspace packages to
// their TypeScript sources (the `@sluice/source` export condition), as `--conditions` would,
// but registered from inside the one process that runs the command (bin/sluice.js).
export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes('@sluice/source')
    ? context.conditions
    : [...context.conditions, '@sluice/source'];
  return next(specifier, { ...context, conditions });
}
