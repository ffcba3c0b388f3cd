import type { FastifyRequest } from 'fastify';

/**
 * The account pages' cookies. Each is HttpOnly, Secure, SameSite=Strict, host-only (no Domain) and
 * scoped to Path=/app, so no script reads it, no other site's request carries it, and no route
 * outside the account pages receives it.
 */

/** The account session: its token (only a hash is stored), for 12 hours. */
export const ACCOUNT_COOKIE = 'svc_account';
/** A random value per browser that binds the CSRF token of the forms shown before sign-in. */
export const BROWSER_COOKIE = 'svc_browser';
/** A key form posted without a live session, signed, for 15 minutes. */
export const INTENT_COOKIE = 'svc_key_intent';

const VALUE = /^[A-Za-z0-9_.-]{1,4000}$/;

/** The named cookie's value, if the request carries exactly one well-formed one. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const found = (request.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .filter(([key]) => key === name);
  const value = found.length === 1 ? found[0]!.slice(1).join('=') : undefined;
  return value !== undefined && VALUE.test(value) ? value : undefined;
}

/** Without maxAgeMs the cookie lasts as long as the browser keeps it open. */
export const setCookie = (name: string, value: string, maxAgeMs?: number): string =>
  `${name}=${value}; Path=/app${maxAgeMs === undefined ? '' : `; Max-Age=${Math.floor(maxAgeMs / 1000)}`}; HttpOnly; Secure; SameSite=Strict`;

export const clearCookie = (name: string): string => `${name}=; Path=/app; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
