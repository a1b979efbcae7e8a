// The provider guard's public vocabulary: how job code describes a request to a paid provider,
// what it gets back, and the one method it calls (`ctx.providers.call`). The guard owns the
// outgoing connection, so the request is a plain description, never a callback that sends.

/** One HTTP request, described. `body` that is not a string or bytes is sent as JSON. */
export interface ProviderRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | undefined;
  /** http: or https: */
  url: string;
  headers?: Readonly<Record<string, string>> | undefined;
  body?: unknown;
}

/** The provider's answer: JSON bodies parsed, anything else as text. */
export interface ProviderAnswer<TBody = unknown> {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: TBody;
}

/** What the guard knows about a call, for building its request (e.g. where the key goes). */
export interface CallInfo {
  readonly jobId: string;
  readonly unitKey: string;
  /** The ledger name of the call: the declared name, `name#2` for its second use in one unit. */
  readonly callName: string;
  /** This attempt's id (the database's), for providers that log it. */
  readonly attemptId: string;
  /**
   * Deterministic from job id, unit key and call name: the same on every retry of this call.
   * The guard also sends it as the `Idempotency-Key` header unless the declaration says `none`.
   */
  readonly idempotencyKey: string;
}

export type RequestSpec = ProviderRequest | ((call: CallInfo) => ProviderRequest);

export type AsyncJobStatus = 'running' | 'succeeded' | 'failed';

/** How an `async-job` call is followed after its submit answered. Polls never bill. */
export interface AsyncJobSpec {
  /** Reads the provider's external job id from the submit answer. */
  externalId(submitted: ProviderAnswer): string;
  /** The status request for an external id. */
  poll(externalId: string, call: CallInfo): ProviderRequest;
  /** `running` polls again; `succeeded` ends the call with this answer; `failed` fails the job. */
  status(answer: ProviderAnswer): AsyncJobStatus;
  /** Pause between polls (default 200 ms). */
  intervalMs?: number | undefined;
  /** Give up polling after this long (default 10 min); the next attempt polls the same id. */
  timeoutMs?: number | undefined;
}

export interface CallOptions {
  /** One request's deadline, connect included (default 30 s). */
  timeoutMs?: number | undefined;
  /** Required for `async-job` declarations, refused for `sync` ones. */
  asyncJob?: AsyncJobSpec | undefined;
}

/**
 * `ctx.providers`: the only way job code reaches a paid provider. `name` is a key of the job's
 * `providers` declarations; an undeclared or inconsistent declaration is refused before anything
 * is sent (fail-closed → needs_review). Calls are allowed only in `execute`.
 */
export interface ProviderClient<TName extends string = string> {
  call(name: TName, request: RequestSpec, opts?: CallOptions): Promise<ProviderAnswer>;
}

/** Stages of an attempt, as the guard sees them. */
export type GuardStage = 'prepare' | 'execute' | 'apply' | 'finalize';
