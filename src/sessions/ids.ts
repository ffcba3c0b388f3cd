import { newUlid, pooledRandomBytes, sha256Hex, type DeploymentKey } from '../../eventstore/index.js';
import { PATTERNS } from './limits.js';

const SESSION_ID = new RegExp(PATTERNS.sessionId);

export const newSessionId = (): string => `ses_${newUlid()}`;
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);

/** A human link capability: 256 random bits. Only its hash is ever stored. */
export function newHumanLinkToken(): string {
  return pooledRandomBytes(32).toString('base64url');
}

export function humanLinkHash(token: string): string {
  return sha256Hex(token);
}

/** human_url: the page a link token opens, on the service's public origin. */
export const humanUrlOf = (publicOrigin: string, token: string): string => `${publicOrigin}/s/${token}`;

/**
 * A responder's id: a keyed digest of the address (or of Slack) under the workspace, so the same
 * person has the same id in every Session of one workspace (a receipt's subject), and different
 * ones in different workspaces; it reveals nothing of the address.
 */
export const responderIdOf = (key: DeploymentKey, workspaceId: string, channel: string, address: string | null): string =>
  `rsp_${key.digest('responder', `${workspaceId}\0${channel}\0${address ?? ''}`).slice(0, 32)}`;

/**
 * A responder's own link token, as unguessable as a human link (a keyed digest of 256 bits) and made
 * again by whichever worker sends the message: only its hash is stored.
 */
export const responderLinkToken = (key: DeploymentKey, sessionId: string, responderId: string): string =>
  key.digest('responder-link', `${sessionId}\0${responderId}`);
