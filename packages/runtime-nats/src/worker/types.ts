import type { Delivery } from '@sluice/contracts';

export interface NatsDelivery extends Delivery {
  readonly seq: number;
  /** The ack subject: acknowledgements and progress go there. */
  readonly reply: string;
  /** The revision of our owner record (compare-and-delete on finish). */
  readonly revision: number;
}
