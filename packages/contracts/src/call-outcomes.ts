// What the provider ledger records of one guarded call. `pending` is written before the request
// leaves (ledger before send); `authorised` is an operator's go-ahead for a call left in doubt.
// Storage's column, a push runtime's store wire and the guard's decisions all read this one list.
export const CALL_OUTCOMES = [
  'pending',
  'succeeded',
  'never_sent',
  'rejected',
  'server_error',
  'timeout',
  'connection_dropped',
  'refused',
  'authorised',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Outcomes of calls that never reached the provider (or are not calls): nothing was billed. */
export const UNBILLED_OUTCOMES: readonly CallOutcome[] = ['never_sent', 'refused', 'authorised'];
