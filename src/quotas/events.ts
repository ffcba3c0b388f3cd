import type { RecordedEvent } from '../../eventstore/index.js';
import type { QuotaUse } from './limits.js';

/**
 * One use a developer workspace made of an operation under quota, on a stream of its own per
 * workspace and kind of use (`quota-<use>-<workspace id>`): every competing use appends to it, at
 * the version its count was read at.
 */

export const QUOTA_USED = 'quota.used';

export interface QuotaUsed {
  type: typeof QUOTA_USED;
  at: string;
  workspace_id: string;
  /** The kind of use, or for a quota per address, the kind and the address's digest (`<use>:<digest>`). */
  use: QuotaUse | `${QuotaUse}:${string}`;
}

export const quotaStreamId = (workspaceId: string, use: QuotaUsed['use']): string => `quota-${use}-${workspaceId}`;

export const asQuotaUsed = (recorded: RecordedEvent): QuotaUsed => ({ type: QUOTA_USED, ...recorded.data }) as QuotaUsed;
