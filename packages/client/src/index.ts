export {
  createSluiceClient,
  type SluiceClient,
  type SluiceClientOptions,
} from './create-sluice-client.js';
export type {
  FeedEvent,
  FileView,
  HandleKind,
  JobHandle,
  JobProgressEvent,
  JobView,
  JobWatchEvent,
  ListOptions,
  Page,
  PageOptions,
  ScheduleOptions,
  SubmitOptions,
  UntypedJob,
  UploadBody,
  UploadOptions,
  WatchAllOptions,
  WatchOptions,
} from './types.js';
export type { ReconnectOptions } from './backoff.js';
export type { AssetRef, ByteRange, Download, DownloadOptions, SignedUrl } from './download.js';
export type { OperatorJobs } from './operator-client.js';
export type {
  AttemptView,
  JobDetail,
  JobFilter,
  LabelledJobView,
  LedgerCallView,
  MetadataMatch,
  OperatorActionResult,
  SearchInput,
  SearchResult,
  UnitView,
  AssetView,
  CallInDoubt,
  ReviewItem,
  ReviewListResult,
  ScheduleListResult,
  ScheduleView,
} from '@sluice/contracts/wire';
export type { ApiKey, EventSourceClass, WebSocketClass } from './transport.js';
export {
  JobCancelledError,
  JobDeadLetteredError,
  JobEndedError,
  JobFailedError,
  JobNeedsReviewError,
  JobStaleError,
  SluiceApiError,
  isJobCancelledError,
  isJobDeadLetteredError,
  isJobEndedError,
  isJobFailedError,
  isJobNeedsReviewError,
  isJobStaleError,
  isSluiceApiError,
  type InputIssue,
  type JobEndedDetails,
} from './errors.js';
