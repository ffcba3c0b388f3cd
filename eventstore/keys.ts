import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Reader } from './events.js';
import { isUnitOfWork, type OpenedKey, type StoredKey, type UnitOfWork } from './unitOfWork.js';
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

/** What every use of the deployment data key throws while none is configured. */
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
  const plaintext = decipher.update(Buffer.from(body, 'base64url'));
  // GCM returns everything from update; final only checks the tag (and throws if it fails).
  decipher.final();
  return plaintext;
}

/** Seals and opens arbitrary bytes with the deployment data key alone (webhook secrets use it). */
export class DeploymentKey {
  constructor(private readonly key: Buffer | undefined) {}

  get configured(): boolean {
    return this.key !== undefined;
  }

  /** For work that must not start without the key (it would fail half way): throws DataKeyUnavailable. */
  require(): void {
    if (!this.key) throw new DataKeyUnavailable();
  }

  seal(plaintext: string, context: string): string {
    if (!this.key) throw new DataKeyUnavailable();
    return seal(this.key, Buffer.from(plaintext, 'utf8'), context);
  }

  open(sealed: string, context: string): string {
    if (!this.key) throw new DataKeyUnavailable();
    return open(this.key, sealed, context).toString('utf8');
  }

  /**
   * A keyed digest (HMAC-SHA-256, base64url) of a value, under a key derived from the data key for
   * one purpose: equal values give equal digests, and without the data key none can be reversed.
   */
  digest(purpose: string, value: string): string {
    if (!this.key) throw new DataKeyUnavailable();
    const purposeKey = createHmac('sha256', this.key).update(`digest:${purpose}`, 'utf8').digest();
    return createHmac('sha256', purposeKey).update(value, 'utf8').digest('base64url');
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


/** Per-stream keys. A stream's key is made on its first sealed write and can only be destroyed. */
export class StreamKeys {
  constructor(private readonly deploymentKey: DeploymentKey) {}

  /**
   * The opened keys of several streams; a stream without a key is absent. Inside a unit of work
   * each key is opened once, and a key read with its stream (UnitOfWork.readStreams) costs no query.
   */
  private async keysOf(db: Reader, streamIds: readonly string[]): Promise<Map<string, OpenedKey>> {
    const uow = isUnitOfWork(db) ? db : undefined;
    const opened = uow?.streamKeys ?? new Map<string, OpenedKey>();
    const unread: string[] = [];
    for (const id of streamIds) {
      if (opened.has(id)) continue;
      if (!uow?.storedKeys.has(id)) unread.push(id);
      else if (uow.storedKeys.get(id) !== undefined) opened.set(id, this.openStored(uow.storedKeys.get(id)!, id));
    }
    if (unread.length > 0) {
      const { rows } = await db.query<{ stream_id: string; wrapped_key: Buffer | null }>(sql.KEY_GET, [unread]);
      for (const row of rows) opened.set(row.stream_id, this.openStored(row.wrapped_key, row.stream_id));
    }
    return new Map(streamIds.flatMap((id) => (opened.has(id) ? [[id, opened.get(id)!] as const] : [])));
  }

  private openStored(wrapped: Buffer | null, streamId: string): OpenedKey {
    return wrapped ? this.deploymentKey.unwrap(wrapped, streamId) : 'destroyed';
  }

  /**
   * The stream's key, made now if it has none; a concurrent first write may win the insert, and
   * its key is read back. A stream the unit of work has not read is most often new, so for it the
   * insert comes first.
   */
  private async keyForWriting(uow: UnitOfWork, streamId: string): Promise<OpenedKey> {
    if (uow.streamKeys.has(streamId) || uow.storedKeys.has(streamId)) {
      const existing = (await this.keysOf(uow, [streamId])).get(streamId);
      if (existing) return existing;
    }
    const fresh = randomBytes(32);
    const inserted = await uow.query(sql.KEY_INSERT, [streamId, this.deploymentKey.wrap(fresh, streamId)]);
    if (inserted.rowCount === 1) {
      uow.streamKeys.set(streamId, fresh);
      return fresh;
    }
    uow.storedKeys.delete(streamId);
    return (await this.keysOf(uow, [streamId])).get(streamId)!;
  }

  /** Seals a JSON value for the stream; refuses a stream whose key was destroyed. */
  async seal(uow: UnitOfWork, streamId: string, value: unknown): Promise<string> {
    const key = await this.keyForWriting(uow, streamId);
    if (key === 'destroyed') throw new StreamKeyDestroyed(streamId);
    return seal(key, Buffer.from(JSON.stringify(value), 'utf8'), streamId);
  }

  /** Opens sealed values of one stream; ERASED for each once the stream's key is destroyed. */
  async opener(db: Reader, streamId: string): Promise<Opener> {
    return (await this.openers(db, [streamId])).get(streamId)!;
  }

  /** An opener for each stream, every key read in one round trip. */
  async openers(db: Reader, streamIds: readonly string[]): Promise<Map<string, Opener>> {
    const keys = await this.keysOf(db, streamIds);
    return new Map(streamIds.map((id) => [id, openerOf(id, keys.get(id))]));
  }

  /** An opener for a stream whose key row was read with it (a rebuild's page): no query. */
  openerOfStored(streamId: string, stored: StoredKey): Opener {
    return openerOf(streamId, stored === undefined ? undefined : this.openStored(stored, streamId));
  }

  /** Destroys the stream's key for good; its sealed content can never be read again. */
  async destroy(uow: UnitOfWork, streamId: string): Promise<void> {
    await uow.query(sql.KEY_DESTROY, [streamId]);
    uow.streamKeys.set(streamId, 'destroyed');
  }
}

export type Opener = (sealed: string) => unknown;

function openerOf(streamId: string, key: OpenedKey | undefined): Opener {
  return (sealed) => {
    if (key === 'destroyed') return ERASED;
    if (!key) throw new Error(`stream ${streamId} has no data key`);
    return JSON.parse(open(key, sealed, streamId).toString('utf8'));
  };
}
