/** The module the worker's paid child loads for this runtime (paid-runtime.ts). */
export const PAID_CHILD_RUNTIME = new URL('./paid-runtime.ts', import.meta.url);
