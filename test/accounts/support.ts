import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { TestApp } from '../support/app.js';
import { made } from '../support/lifecycle.js';

/** Calls shared by the account tests: a real SMTP server that receives the sign-in mail, and a browser's cookie jar over inject. */

export interface ReceivedMail {
  to: string[];
  /** The message as received, transfer encoding undone. */
  text: string;
  /** The sign-in link's path and query (/app/confirm/<token>[?continue=key]). */
  link: string;
  token: string;
}

/** How the server answers the next messages: accept them, refuse the recipient, or fail the data. */
export type SmtpBehaviour = 'accept' | 'refuse_recipient' | 'fail_data';

export interface Mailbox {
  readonly url: string;
  readonly messages: ReceivedMail[];
  behave(behaviour: SmtpBehaviour): void;
  /** The newest message to `to`, which must exist. */
  last(to: string): ReceivedMail;
}

/** Undoes quoted-printable: soft line breaks and =XX escapes. */
const unquote = (raw: string): string =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const LINK = /\/app\/confirm\/([A-Za-z0-9_-]{43})(\?continue=key)?/;

/**
 * One smtp-server instance for the test file (no TLS, no authentication, on loopback). A message
 * is recorded before the server answers 250, so it is there once the request that sent it returns.
 * Each test starts with an empty mailbox that accepts.
 */
export function useMailbox(): Mailbox {
  let server: SMTPServer | undefined;
  let behaviour: SmtpBehaviour = 'accept';
  const messages: ReceivedMail[] = [];
  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(behaviour === 'refuse_recipient' ? Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }) : null);
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (behaviour === 'fail_data') return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          const text = unquote(Buffer.concat(chunks).toString('utf8'));
          const match = LINK.exec(text);
          messages.push({ to: session.envelope.rcptTo.map((r) => r.address), text, link: match?.[0] ?? '', token: match?.[1] ?? '' });
          callback(null);
        });
      },
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  beforeEach(() => {
    messages.length = 0;
    behaviour = 'accept';
  });
  return {
    get url() {
      return `smtp://127.0.0.1:${(made(server).server.address() as AddressInfo).port}`;
    },
    messages,
    behave(next) {
      behaviour = next;
    },
    last(to) {
      const found = messages.filter((m) => m.to.includes(to)).at(-1);
      if (!found) throw new Error(`no mail to ${to}`);
      return found;
    },
  };
}

/** What a page of this service sends with a form post: Fetch Metadata of its own origin. */
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' } as const;
export const CROSS_SITE = { 'sec-fetch-site': 'cross-site' } as const;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text: string): string => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/** The value of the first input named `name` in a page (hidden fields: csrf, nonce, rendered_at). */
export function inputValue(page: string, name: string): string {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no input ${name} on the page`);
  return unescape(match[1]!);
}

export const errorCodeOf = (page: string): string | undefined => /<main data-error-code="([A-Z_]+)"/.exec(page)?.[1];

/** The key shown once on the keys page. */
export const shownKey = (page: string): string | undefined => /<pre id="new-key">(svc_sk_[A-Za-z0-9_-]{43})<\/pre>/.exec(page)?.[1];

/**
 * A browser over inject: it keeps the cookies the service sets (every one is Path=/app, so all are
 * sent to /app), and posts forms as one of the service's pages would.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly t: TestApp,
    readonly remoteAddress = '203.0.113.7',
  ) {}

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const header = res.headers['set-cookie'];
    for (const cookie of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.t.app.inject({ url, remoteAddress: this.remoteAddress, headers: this.cookieHeader() }));
  }

  async post(url: string, form: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.t.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }

  /** Asks for a sign-in link from the sign-in page; the answer page. */
  async requestLink(email: string): Promise<LightMyRequestResponse> {
    const page = await this.get('/app/sign-in');
    return this.post('/app/sign-in', { csrf: inputValue(page.body, 'csrf'), email });
  }

  /** Opens a link's page and presses Sign in. */
  async confirm(link: string): Promise<LightMyRequestResponse> {
    const page = await this.get(link);
    expect(page.statusCode).toBe(200);
    return this.post(link, { csrf: inputValue(page.body, 'csrf') });
  }

  /** The whole sign-in: a link mailed to `email`, opened here and confirmed (303 to the keys page). */
  async signIn(mailbox: Mailbox, email: string): Promise<void> {
    expect((await this.requestLink(email)).statusCode).toBe(200);
    const confirmed = await this.confirm(mailbox.last(email).link);
    expect(confirmed.statusCode, confirmed.body).toBe(303);
  }

  /** The keys page's form fields, from a fresh render. */
  async keyForm(): Promise<{ csrf: string; nonce: string; rendered_at: string }> {
    const page = await this.get('/app/keys');
    expect(page.statusCode).toBe(200);
    return { csrf: inputValue(page.body, 'csrf'), nonce: inputValue(page.body, 'nonce'), rendered_at: inputValue(page.body, 'rendered_at') };
  }

  /** A new key from a fresh form; the key shown once. */
  async createKey(fields: Record<string, string> = {}): Promise<string> {
    const res = await this.post('/app/keys', { ...(await this.keyForm()), label: 'test', expires_in_days: '30', ...fields });
    expect(res.statusCode, res.body).toBe(201);
    return shownKey(res.body)!;
  }
}

/** A signed-in browser of a new account with one key: the key, the browser, and the account's workspace. */
export async function developer(t: TestApp, mailbox: Mailbox, email: string): Promise<{ key: string; browser: Browser; workspaceId: string }> {
  const browser = new Browser(t);
  await browser.signIn(mailbox, email);
  const key = await browser.createKey();
  const page = await browser.get('/app/keys');
  return { key, browser, workspaceId: /Workspace <code>(wks_[0-9A-Z]{26})<\/code>/.exec(page.body)![1]! };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
