// The zod-free part of the contracts, for browsers: importing it adds no zod to a bundle.
export * from './errors.js';
export * from './state-machine.js';
export * from './job-id.js';
export * from './names.js';
export * from './event-state.js';
export type { JobEvent, JobEventType, StateChangeEvent } from './events.js';
export type {
  AnyJobDefinition,
  JobDefinition,
  JobRegistry,
  inferJobInput,
  inferJobKind,
  inferJobVersion,
  inferJobOutput,
  inferJobProgress,
  inferRunInput,
  inferRunOutput,
  inferJobEventName,
  inferJobEventPayload,
} from './define-job.js';
export type {
  BatchOptions,
  DebounceMode,
  DebounceOptions,
  FlowAnswer,
  SingletonMode,
  SingletonOptions,
} from './flow-control.js';
export type {
  ChildView,
  SignalResult,
  TokenView,
  TokenCompleteResult,
  WaitResult,
} from './waits.js';
export type {
  AssetView,
  FeedItem,
  FileView,
  HoldResult,
  JobAssetsResult,
  JobResult,
  JobView,
  ListResult,
  CallInDoubt,
  ReviewItem,
  ReviewListResult,
  SignedUrl,
  SubmitResult,
} from './api.js';
export type {
  AttemptView,
  JobDetail,
  JobFilter,
  JobLinks,
  LabelledJobView,
  LedgerCallView,
  MetadataMatch,
  SearchInput,
  SearchResult,
  UnitView,
} from './operator-api.js';
export type {
  AuditAction,
  AuditEntry,
  AuditListInput,
  AuditListResult,
  BulkAction,
  BulkListResult,
  BulkOperationView,
  BulkPreview,
  OperatorActionResult,
} from './operator-actions.js';
export type {
  CreateScheduleInput,
  MissedTickPolicy,
  ScheduleListResult,
  ScheduleOptions,
  ScheduleView,
} from './schedules.js';
export type { WhoAmI } from './whoami.js';
export type { OverviewResult } from './overview.js';
export type { ActivityResult, HistogramView } from './activity.js';
export type {
  ApiKeyView,
  KeyCreateInput,
  KeyCreateResult,
  KeyListResult,
  KeyRevokeInput,
} from './api-keys.js';
export * from './api-paths.js';
export * from './scopes.js';
export * from './sleep.js';
export { backoffMs } from './recovery.js';
export * from './trace-context.js';
