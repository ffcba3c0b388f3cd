import { randomBytes } from 'node:crypto';
import { newUlid, sha256Hex } from '../../eventstore/index.js';
import { PATTERNS } from './limits.js';

const SESSION_ID = new RegExp(PATTERNS.sessionId);

export const newSessionId = (): string => `ses_${newUlid()}`;
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);

/** A human link capability: 256 random bits. Only its hash is ever stored. */
export function newHumanLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

export function humanLinkHash(token: string): string {
  return sha256Hex(token);
}
