import { randomBytes } from 'node:crypto';
import { newUlid, sha256Hex } from '../../eventstore/index.js';

const CREDENTIAL = /^svc_mg_[A-Za-z0-9_-]{43}$/;

/** A trial's management credential: 256 random bits. Returned once; only its hash is stored. */
export const newManagementCredential = (): string => `svc_mg_${randomBytes(32).toString('base64url')}`;

export const isManagementCredential = (value: string): boolean => CREDENTIAL.test(value);

/**
 * What is stored and looked up. The credential is 256 random bits, so finding its row by the hash
 * is the safe comparison: an index lookup's timing can tell a caller at most how much of some
 * hash's prefix its guess's hash shares, which brings it no closer to a credential.
 */
export const credentialHash = (credential: string): string => sha256Hex(credential);

/** A trial's workspace, the audience of its receipts. */
export const newTrialWorkspaceId = (): string => `wks_${newUlid()}`;
