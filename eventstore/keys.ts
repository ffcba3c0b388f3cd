import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { pooledRandomBytes, type Reader } from './events.js';
import { isUnitOfWork, storedKeyOf, type KeyRow, type OpenedKey, type StoredKey, type UnitOfWork, type WrappedKey } from './unitOfWork.js';
import * as sql from './sql.js';

/**
 * Crypto-shredding: content that retention must erase is sealed with a per-stream key, itself
 * wrapped by a deployment data key. Destroying the stream key leaves only ciphertext in the log;
 * rotating the data key wraps the stream keys again and leaves the log as it is.
 */

const VERSION = 'v1';

/** What reading sealed content of a destroyed stream yields: explicit, never an error or a guess. */
export const ERASED = Object.freeze({ erased: true as const });
export type Erased = typeof ERASED;
export const erased = (value: unknown): value is Erased => value === ERASED;

export class StreamKeyDestroyed extends Error {
  constructor(readonly streamId: string) {
    super(`the data key of stream ${streamId} has been destroyed`);
    this.name = 'StreamKeyDestroyed';
  }
}

/**
 * The id of the key SVC_DATA_KEY names alone, and of every stream key wrapped before key ids were
 * recorded (migration 0100): those were all wrapped by that one key.
 */
export const INITIAL_KEY_ID = 'initial';

/** A deployment data key and the id it goes by in SVC_DATA_KEYS and in stream_keys. */
export interface DataKey {
  id: string;
  key: Buffer;
}

/** What every use of a deployment data key throws while it is not configured: none at all, or the one a key was wrapped by. */
export class DataKeyUnavailable extends Error {
  constructor(
    readonly keyId?: string,
    why = 'is not configured (SVC_DATA_KEYS)',
  ) {
    super(keyId === undefined ? 'no deployment data key is configured (SVC_DATA_KEYS)' : `deployment data key ${keyId} ${why}`);
    this.name = 'DataKeyUnavailable';
  }
}

/** Parses one data key: base64url of exactly 32 bytes. */
export function parseDataKey(encoded: string | undefined): Buffer | undefined {
  if (!encoded) return undefined;
  const key = Buffer.from(encoded, 'base64url');
  return key.length === 32 && key.toString('base64url') === encoded.replace(/=+$/, '') ? key : undefined;
}

/** AES-256-GCM with a context bound in (the stream, or what a value is): `v1.<iv>.<body>.<tag>`. */
export function sealWith(key: Buffer, plaintext: Buffer, aad: string): string {
  return sealUnder(key, pooledRandomBytes(12), plaintext, aad);
}

function sealUnder(key: Buffer, iv: Buffer, plaintext: Buffer, aad: string): string {
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

/**
 * The key row of the deployment's digest key: a key like a stream's (wrapped by a data key, so a
 * rotation re-wraps it), never destroyed, whose stream holds no event.
 */
const DIGEST_KEY_STREAM = 'deployment-digests';

/** How many opened stream keys a process keeps: the Sessions in play at once, with room to spare. */
const OPENED_KEYS = 10_000;

/**
 * The deployment data keys (SVC_DATA_KEYS): the first wraps every new stream key, each of the
 * others only unwraps the keys it wrapped before a rotation, until `rekey` has wrapped them again.
 * Keyed digests use a key of their own that no rotation changes (loadDigestKey).
 */
export class DeploymentKey {
  private readonly byId: ReadonlyMap<string, Buffer>;
  private readonly wrapping: DataKey | undefined;
  private digestKey: Buffer | undefined;
  /** Each purpose's key, derived from the digest key once: a create with a plan makes several digests. */
  private readonly purposeKeys = new Map<string, Buffer>();
  /** Why the digest key is not loaded, once a load found it cannot be. */
  private digestProblem: string | undefined;
  /** What the last load threw (the database out of reach): what a digest throws until a load succeeds. */
  private digestLoadFailure: unknown;
  /**
   * Stream keys opened before, by the exact bytes they were opened from. Every command, read and
   * page of a list opens its Sessions' keys, each an AES-GCM pass with a cipher of its own. Keeping
   * them adds nothing to what this process's memory holds: the data keys that open every one are
   * there already. A destroyed key leaves no bytes to look up, and a rewrapped one (`rekey`)
   * comes back as other bytes, opened anew.
   */
  private readonly opened = new LRUCache<string, Buffer>({ max: OPENED_KEYS });

  constructor(keys: readonly DataKey[] = []) {
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.wrapping = keys[0];
  }

  get configured(): boolean {
    return this.wrapping !== undefined;
  }

  /** The id of the key that wraps new stream keys; undefined when none is configured. */
  get wrappingKeyId(): string | undefined {
    return this.wrapping?.id;
  }

  /** Every configured id, the wrapping key's first. */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  /** For work that must not start without the key (it would fail half way): throws DataKeyUnavailable. */
  require(): void {
    if (!this.wrapping) throw new DataKeyUnavailable();
  }

  private key(id: string): Buffer {
    const key = this.byId.get(id);
    if (!key) throw new DataKeyUnavailable(this.wrapping ? id : undefined);
    return key;
  }

  /**
   * Opens what the one key of SVC_DATA_KEY sealed directly, before every secret went under a
   * stream key (webhook signing secrets of that time, until `rekey` seals them again).
   */
  openInitial(sealed: string, context: string): string {
    return open(this.key(INITIAL_KEY_ID), sealed, context).toString('utf8');
  }

  /**
   * A keyed digest (HMAC-SHA-256, base64url) of a value, under a key derived from the digest key
   * for one purpose: equal values give equal digests, and without the key none can be reversed.
   */
  digest(purpose: string, value: string): string {
    if (!this.digestKey) throw this.digestLoadFailure ?? new DataKeyUnavailable();
    let purposeKey = this.purposeKeys.get(purpose);
    if (!purposeKey) {
      purposeKey = createHmac('sha256', this.digestKey).update(`digest:${purpose}`, 'utf8').digest();
      this.purposeKeys.set(purpose, purposeKey);
    }
    return createHmac('sha256', purposeKey).update(value, 'utf8').digest('base64url');
  }

  /** The stream key wrapped by the wrapping key, and kept as opened: the Session made with it is most often read next by this process. */
  wrap(streamKey: Buffer, streamId: string): WrappedKey {
    if (!this.wrapping) throw new DataKeyUnavailable();
    const wrapped = sealWith(this.wrapping.key, streamKey, `stream-key:${streamId}`);
    this.opened.set(openedKeyName(this.wrapping.id, streamId, wrapped), ownCopy(streamKey));
    return { wrapped: Buffer.from(wrapped, 'utf8'), keyId: this.wrapping.id };
  }

  /**
   * The stream key, opened: DataKeyUnavailable when the data key of its id is missing, or is
   * another key than the one that wrapped it (a process given a wrong key serves nothing).
   */
  unwrap(stored: WrappedKey, streamId: string): Buffer {
    const wrapped = stored.wrapped.toString('utf8');
    const known = openedKeyName(stored.keyId, streamId, wrapped);
    const opened = this.opened.get(known);
    if (opened) return opened;
    const dataKey = this.key(stored.keyId);
    let streamKey: Buffer;
    try {
      streamKey = open(dataKey, wrapped, `stream-key:${streamId}`);
    } catch {
      throw new DataKeyUnavailable(stored.keyId, 'does not open the stream keys wrapped under its id (SVC_DATA_KEYS)');
    }
    this.opened.set(known, streamKey);
    return streamKey;
  }

  /** Why digests cannot be made, or undefined once they can. */
  get digestsUnavailable(): string | undefined {
    if (this.digestKey) return undefined;
    return this.digestProblem ?? 'the digest key is not loaded';
  }

  /**
   * Loads the digest key, making it on the first start of a deployment: digests name streams
   * (a sign-in address's) and must stay the same across every rotation. A deployment whose log
   * began before the digest key existed keyed its digests by its one data key, `initial`, which
   * therefore becomes its digest key; a new one draws a random key. Does nothing without a data
   * key; a key it cannot unwrap leaves digests unavailable (the readiness check names the key).
   * A database out of reach throws, and digests throw the same until a load succeeds, so a
   * request that needs one is refused as the database's outage rather than as a missing key.
   */
  async loadDigestKey(db: Reader): Promise<void> {
    if (this.digestKey || !this.wrapping) return;
    try {
      await this.readDigestKey(db);
      this.digestLoadFailure = undefined;
    } catch (error) {
      this.digestLoadFailure = error;
      throw error;
    }
  }

  /** Reads the digest key's row (making it when there is none) and opens it, or says why not. */
  private async readDigestKey(db: Reader): Promise<void> {
    let stored = await digestKeyRow(db);
    if (stored === undefined) {
      const began = (await db.query(sql.ANY_EVENT)).rows.length > 0;
      const initial = this.byId.get(INITIAL_KEY_ID);
      if (began && !initial) {
        this.digestProblem = `data key ${INITIAL_KEY_ID}: the digests of this deployment were made with it, and SVC_DATA_KEYS has no key ${INITIAL_KEY_ID}`;
        return;
      }
      const made = this.wrap(began ? initial! : randomBytes(32), DIGEST_KEY_STREAM);
      await db.query(sql.KEY_INSERT, [DIGEST_KEY_STREAM, made.wrapped, made.keyId]);
      stored = await digestKeyRow(db);
    }
    if (!stored || !this.byId.has(stored.keyId)) {
      this.digestProblem = stored ? `data key ${stored.keyId}: it wraps the digest key, and SVC_DATA_KEYS has no key ${stored.keyId}` : 'the digest key was destroyed';
      return;
    }
    if (!this.opens(stored, DIGEST_KEY_STREAM)) {
      this.digestProblem = `data key ${stored.keyId}: it does not open the digest key, wrapped by a key of that id`;
      return;
    }
    this.digestKey = this.unwrap(stored, DIGEST_KEY_STREAM);
    this.purposeKeys.clear();
    this.digestProblem = undefined;
  }

  /** Whether the configured key of `stored`'s id opens it: the same id may have been given another key. */
  opens(stored: WrappedKey, streamId: string): boolean {
    try {
      this.unwrap(stored, streamId);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * The bytes in memory of their own. A small Buffer is most often a slice of Node's shared 8 KB
 * pool (Buffer.from, as pooledRandomBytes makes a stream key), and a kept slice holds its whole
 * slab: 10,000 kept keys could hold 80 MB, and creations measured slower while they did.
 */
function ownCopy(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/** What an opened stream key is kept by: the wrapped bytes it was opened from, with their key id and stream. */
const openedKeyName = (keyId: string, streamId: string, wrapped: string): string => `${keyId}\0${streamId}\0${wrapped}`;

async function digestKeyRow(db: Reader): Promise<WrappedKey | null | undefined> {
  const { rows } = await db.query<KeyRow>(sql.KEY_GET, [[DIGEST_KEY_STREAM]]);
  return rows[0] && storedKeyOf(rows[0]);
}

/**
 * Per-stream keys. A stream's key is made on its first sealed write and can only be destroyed.
 * The deployment key that wraps them is reached through them (the digest key is one of its rows,
 * DIGEST_KEY_STREAM), so whoever holds the stream keys holds the one handle on both.
 */
export class StreamKeys {
  constructor(readonly deploymentKey: DeploymentKey) {}

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
      const { rows } = await db.query<KeyRow & { stream_id: string }>(sql.KEY_GET, [unread]);
      for (const row of rows) opened.set(row.stream_id, this.openStored(storedKeyOf(row)!, row.stream_id));
    }
    return new Map(streamIds.flatMap((id) => (opened.has(id) ? [[id, opened.get(id)!] as const] : [])));
  }

  private openStored(wrapped: WrappedKey | null, streamId: string): OpenedKey {
    return wrapped ? this.deploymentKey.unwrap(wrapped, streamId) : 'destroyed';
  }

  /**
   * The stream's key, made now if it has none; a concurrent first write may win the insert, and
   * its key is read back. A stream the unit of work has not read is most often new, so for it the
   * insert comes first. A stream known to have no events gets its key row in the statement of its
   * first append: a writer that started it first makes that statement conflict, and the command
   * runs again.
   */
  private async keyForWriting(uow: UnitOfWork, streamId: string): Promise<OpenedKey> {
    if (uow.streamKeys.has(streamId) || uow.storedKeys.has(streamId)) {
      const existing = (await this.keysOf(uow, [streamId])).get(streamId);
      if (existing) return existing;
    }
    const fresh = pooledRandomBytes(32);
    const { wrapped, keyId } = this.deploymentKey.wrap(fresh, streamId);
    if (uow.knownEmpty(streamId)) {
      uow.writeAlong(streamId, { name: 'stream_key', text: sql.KEY_WRITE, params: [streamId, wrapped, keyId] });
      uow.streamKeys.set(streamId, fresh);
      return fresh;
    }
    const inserted = await uow.query(sql.KEY_INSERT, [streamId, wrapped, keyId]);
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
    return sealWith(key, Buffer.from(JSON.stringify(value), 'utf8'), streamId);
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

  /**
   * The row cipher of each stream, every key read in one round trip (none that the unit of work
   * holds already); undefined for a stream without a live key.
   */
  async rowCiphers(db: Reader, streamIds: readonly string[]): Promise<Map<string, RowCipher | undefined>> {
    const keys = await this.keysOf(db, streamIds);
    return new Map(streamIds.map((id) => [id, rowCipherOf(id, keys.get(id))]));
  }

  /** The row cipher of a stream whose key row was read with its row (keyJoin): no query. */
  rowCipherOfStored(streamId: string, stored: StoredKey): RowCipher | undefined {
    return rowCipherOf(streamId, stored ? this.deploymentKey.unwrap(stored, streamId) : undefined);
  }

  /** An opener for a stream whose key row was read with it (a rebuild's page): no query. */
  openerOfStored(streamId: string, stored: StoredKey): Opener {
    return openerOf(streamId, stored === undefined ? undefined : this.openStored(stored, streamId));
  }

  /** openerOfStored and rowCipherOfStored of one stream, its key unwrapped once for both: a rebuild's fold of a whole stream. */
  bothOfStored(streamId: string, stored: StoredKey): { open: Opener; cipher: RowCipher | undefined } {
    const key = stored === undefined ? undefined : this.openStored(stored, streamId);
    return { open: openerOf(streamId, key), cipher: rowCipherOf(streamId, key) };
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

/**
 * Text a projection keeps in a table (a Session's view, an account's address), sealed with its
 * stream's key: a table holds no more in the clear than the log does, so a copy of the database
 * without the data keys reads none of it, a process without the right data key serves none of it,
 * and destroying the stream's key leaves it unreadable (docs/architecture.md#content-at-rest).
 *
 * Sealing is deterministic: the IV is a keyed digest (HMAC-SHA-256, under a key derived from the
 * stream's) of the column and the text, as synthetic-IV modes make it. The same row folded again
 * (a rebuild, a replayed batch) is the same bytes, so a rebuilt table still equals the live one
 * byte for byte. What that gives away over a random IV is only whether two values of one stream
 * in one column are equal; an IV repeats only with the same text, column and key.
 */
export interface RowCipher {
  seal(column: string, text: string): string;
  /** The text; a value stored in the clear, before the release that sealed rows, as it is (a rebuild seals it). */
  open(column: string, stored: string): string;
}

/** What sealWith writes: `v1.`, 12 bytes of IV, the body and 16 bytes of tag, in base64url. */
const SEALED_VALUE = /^v1\.[\w-]{16}\.[\w-]*\.[\w-]{22}$/;

/**
 * Each stream key's IV key, derived once: an opened key is one object for as long as the process
 * keeps it (DeploymentKey), and the IV key goes with it.
 */
const ivKeys = new WeakMap<Buffer, Buffer>();

function ivKeyOf(key: Buffer): Buffer {
  let ivKey = ivKeys.get(key);
  if (!ivKey) ivKeys.set(key, (ivKey = createHmac('sha256', key).update('row-iv', 'utf8').digest()));
  return ivKey;
}

/** The row cipher of a stream's opened key; undefined for none or a destroyed one. */
export function rowCipherOf(streamId: string, key: OpenedKey | undefined): RowCipher | undefined {
  if (key === undefined || key === 'destroyed') return undefined;
  const context = (column: string): string => `${streamId} ${column}`;
  return {
    seal(column, text) {
      // Derived when the first value is sealed: a read only opens.
      const ivKey = ivKeyOf(key);
      const plaintext = Buffer.from(text, 'utf8');
      const iv = createHmac('sha256', ivKey).update(context(column), 'utf8').update('\0').update(plaintext).digest().subarray(0, 12);
      return sealUnder(key, iv, plaintext, context(column));
    },
    open(column, stored) {
      return SEALED_VALUE.test(stored) ? open(key, stored, context(column)).toString('utf8') : stored;
    },
  };
}
