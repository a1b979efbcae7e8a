// workerd's own module, as far as the tests use it; bindings.ts gives the bindings their types.
declare module 'cloudflare:workers' {
  export const env: unknown;
}
