// The bindings of wrangler.test.jsonc, typed structurally.
import { env } from 'cloudflare:workers';
import type { MessagePointer } from '@sluice/contracts';
import type { D1Like, R2BucketLike } from '@sluice/storage/d1';
import type { QueueLike, WorkflowBindingLike } from '../src/platform.js';
import type { DeadLetterMessage } from '../src/worker/dead-letter.js';

export interface TestEnv {
  DB: D1Like;
  WF_V1: Omit<WorkflowBindingLike<MessagePointer>, 'get'> & {
    get(id: string): Promise<{
      id: string;
      status(): Promise<{
        status: string;
        error?: { name: string; message: string };
        output?: unknown;
      }>;
      pause(): Promise<void>;
      resume(): Promise<void>;
      terminate(): Promise<void>;
    }>;
  };
  WF_V2: TestEnv['WF_V1'];
  DLQ: QueueLike<DeadLetterMessage>;
  BLOBS: R2BucketLike;
}

export const bindings = env as TestEnv;
