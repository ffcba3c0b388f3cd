import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { transactionMemo, type Tx } from './transaction.js';
import * as sql from './sql.js';

/**
 * Crypto-shredding: content that retention must erase is sealed with a per-stream key, itself
 * wrapped by the deployment data key. Destroying the stream key leaves only ciphertext in the log.
 */

const VERSION = 'v1';

/** What reading sealed content of a destroyed stream yields: explicit, never an error or a guess. */
export const ERASED = Object.freeze({ erased: true as const });
export type Erased = typeof ERASED;

export class StreamKeyDestroyed extends Error {
  constructor(readonly streamId: string) {
    super(`the data key of stream ${streamId} has been destroyed`);
    this.name = 'StreamKeyDestroyed';
  }
}

export class DataKeyUnavailable extends Error {
  constructor() {
    super('the deployment data key (SVC_DATA_KEY) is not configured');
    this.name = 'DataKeyUnavailable';
  }
}

/** Parses SVC_DATA_KEY: base64url of exactly 32 bytes. */
export function parseDataKey(encoded: string | undefined): Buffer | undefined {
  if (!encoded) return undefined;
  const key = Buffer.from(encoded, 'base64url');
  return key.length === 32 && key.toString('base64url') === encoded.replace(/=+$/, '') ? key : undefined;
}

function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

function open(key: Buffer, sealed: string, aad: string): Buffer {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
}

/** Seals and opens arbitrary bytes with the deployment data key alone (webhook secrets use it). */
export class DeploymentKey {
  constructor(private readonly key: Buffer | undefined) {}

  get configured(): boolean {
    return this.key !== undefined;
  }

  seal(plaintext: string, context: string): string {
    if (!this.key) throw new DataKeyUnavailable();
    return seal(this.key, Buffer.from(plaintext, 'utf8'), context);
  }

  open(sealed: string, context: string): string {
    if (!this.key) throw new DataKeyUnavailable();
    return open(this.key, sealed, context).toString('utf8');
  }

  wrap(streamKey: Buffer, streamId: string): Buffer {
    if (!this.key) throw new DataKeyUnavailable();
    return Buffer.from(seal(this.key, streamKey, `stream-key:${streamId}`), 'utf8');
  }

  unwrap(wrapped: Buffer, streamId: string): Buffer {
    if (!this.key) throw new DataKeyUnavailable();
    return open(this.key, wrapped.toString('utf8'), `stream-key:${streamId}`);
  }
}

const memoKeyOf = (streamId: string): string => `stream-key:${streamId}`;

/** Per-stream keys. A stream's key is made on its first sealed write and can only be destroyed. */
export class StreamKeys {
  constructor(private readonly deploymentKey: DeploymentKey) {}

  private async keyFor(db: Tx | pg.Pool, streamId: string, create: boolean): Promise<Buffer | Erased | undefined> {
    const memo = transactionMemo(db);
    const known = memo?.get(memoKeyOf(streamId)) as Buffer | Erased | undefined;
    if (known) return known;
    const key = await this.fetchKey(db, streamId, create);
    if (key) memo?.set(memoKeyOf(streamId), key);
    return key;
  }

  private async fetchKey(db: Tx | pg.Pool, streamId: string, create: boolean): Promise<Buffer | Erased | undefined> {
    const found = await db.query<{ wrapped_key: Buffer | null }>(sql.KEY_GET, [streamId]);
    const row = found.rows[0];
    if (row) return row.wrapped_key ? this.deploymentKey.unwrap(row.wrapped_key, streamId) : ERASED;
    if (!create) return undefined;
    const fresh = randomBytes(32);
    const inserted = await db.query(sql.KEY_INSERT, [streamId, this.deploymentKey.wrap(fresh, streamId)]);
    // A concurrent first write may have won the insert: then read back whichever key is stored.
    return inserted.rowCount === 1 ? fresh : this.fetchKey(db, streamId, false);
  }

  /** Seals a JSON value for the stream; refuses a stream whose key was destroyed. */
  async seal(tx: Tx, streamId: string, value: unknown): Promise<string> {
    const key = await this.keyFor(tx, streamId, true);
    if (!Buffer.isBuffer(key)) throw new StreamKeyDestroyed(streamId);
    return seal(key, Buffer.from(JSON.stringify(value), 'utf8'), streamId);
  }

  /** Opens sealed values of one stream; ERASED for each once the stream's key is destroyed. */
  async opener(db: Tx | pg.Pool, streamId: string): Promise<(sealed: string) => unknown> {
    const key = await this.keyFor(db, streamId, false);
    return (sealed) => {
      if (key === ERASED) return ERASED;
      if (!Buffer.isBuffer(key)) throw new Error(`stream ${streamId} has no data key`);
      return JSON.parse(open(key, sealed, streamId).toString('utf8'));
    };
  }

  /** Destroys the stream's key for good; its sealed content can never be read again. */
  async destroy(tx: Tx | pg.Pool, streamId: string): Promise<void> {
    await tx.query(sql.KEY_DESTROY, [streamId]);
    transactionMemo(tx)?.set(memoKeyOf(streamId), ERASED);
  }
}
