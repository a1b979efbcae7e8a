// workerd's own modules, as far as the tests use them (the package type-checks without the
// Workers globals; the real objects come from workerd). bindings.ts types the bindings.
declare module 'cloudflare:workers' {
  export const env: unknown;
}

declare module 'cloudflare:test' {
  export interface WorkflowIntrospector {
    waitForStatus(status: string): Promise<void>;
    getError(): Promise<{ name: string; message: string }>;
    getOutput(): Promise<unknown>;
    dispose(): Promise<void>;
  }
  export function introspectWorkflowInstance(
    workflow: unknown,
    instanceId: string,
  ): Promise<WorkflowIntrospector>;
  export function abortAllDurableObjects(): Promise<void>;
}
