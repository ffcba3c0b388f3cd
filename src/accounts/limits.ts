import { DAY, HOUR } from '../clock.js';

const MINUTE = 60_000;

/**
 * The published limits of developer accounts. Each number appears here once; every deadline a
 * request was granted is recorded in the log, so a change applies only going forward.
 */
export const ACCOUNT_LIMITS = {
  /** A sign-in link works once, until this long after it was issued. */
  linkLifetimeMs: 15 * MINUTE,
  /** Sign-in links per address, and per client, within the rolling window. */
  linksPerAddress: 5,
  linksPerClient: 20,
  linkWindowMs: HOUR,
  /** An account session (its cookie) lasts this long after sign-in. */
  accountSessionMs: 12 * HOUR,
  /** The key form's nonce, and the key-intent cookie, each last this long. */
  keyFormMs: 15 * MINUTE,
  /** Keys of one account that are neither revoked nor expired. */
  activeKeys: 10,
  /** A key's label, in characters. */
  labelMax: 64,
  /** An email address, in characters, after trimming. */
  emailMin: 3,
  emailMax: 254,
  /** A key's last-used time is recorded at most this often: a key in constant use writes little. */
  keyUseResolutionMs: 10 * MINUTE,
  /** Developer-key Sessions (free plan): their human link's lifetime and their retention after they end. */
  sessionLinkHours: 168,
  sessionRetentionHours: 168,
} as const;

/** The expiry choices the key form offers, in days, as the form sends them. */
export const EXPIRY_CHOICES = ['30', '90', '365', 'never'] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

export const isExpiryChoice = (value: string | undefined): value is ExpiryChoice => (EXPIRY_CHOICES as readonly string[]).includes(value ?? '');

/**
 * The date (UTC, YYYY-MM-DD) a key made from a form rendered at `renderedAt` expires on; null for
 * `never`. A key works until that day begins, so the date is what the form shows and what is stored.
 */
export function expiryDate(renderedAt: Date, choice: ExpiryChoice): string | null {
  if (choice === 'never') return null;
  const day = Date.UTC(renderedAt.getUTCFullYear(), renderedAt.getUTCMonth(), renderedAt.getUTCDate());
  return new Date(day + Number(choice) * DAY).toISOString().slice(0, 10);
}

/** The moment a key expiring on `date` stops working: that day's start, UTC. */
export const expiresAtOf = (date: string): Date => new Date(`${date}T00:00:00.000Z`);
