import { randomBytes } from 'node:crypto';
import { newUlid, sha256Hex } from '../../eventstore/index.js';

/**
 * The secrets of developer accounts and the ids they are stored under. Every secret is 256 random
 * bits, shown or sent once and stored only as its SHA-256.
 */

const DEVELOPER_KEY = /^svc_sk_[A-Za-z0-9_-]{43}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A developer API key: `svc_sk_` and 256 random bits. */
export const newDeveloperKey = (): string => `svc_sk_${randomBytes(32).toString('base64url')}`;
export const isDeveloperKey = (value: string): boolean => DEVELOPER_KEY.test(value);
/** The keys page tells keys apart by their last characters; the other 220 bits stay unknown. */
export const fingerprintOf = (key: string): string => `svc_sk_…${key.slice(-6)}`;

/** A sign-in link's token, or an account session cookie's. */
export const newToken = (): string => randomBytes(32).toString('base64url');
export const isToken = (value: string): boolean => TOKEN.test(value);

/**
 * What is stored and looked up. Each secret is 256 random bits, so finding its row by the hash is
 * safe: an index lookup's timing tells a caller at most how much of some hash's prefix its guess's
 * hash shares, which brings it no closer to a secret.
 */
export const secretHash = (secret: string): string => sha256Hex(secret);

export const newAccountId = (): string => `acc_${newUlid()}`;
/** A developer workspace: the audience of its Sessions' receipts. */
export const newDeveloperWorkspaceId = (): string => `wks_${newUlid()}`;
export const newSessionId = (): string => `asn_${newUlid()}`;
export const newKeyId = (): string => `key_${newUlid()}`;
export const newLinkId = (): string => `lnk_${newUlid()}`;
export const newNonceId = (): string => randomBytes(16).toString('base64url');
