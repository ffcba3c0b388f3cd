import { ERASED, type Erased, type Opener, type StreamKeys } from './keys.js';
import type { JsonObject } from './events.js';
import type { UnitOfWork } from './unitOfWork.js';

/**
 * How a stream kind keeps content that retention must erase: the fields its declaration names,
 * per event type, travel together as one value `sealed`, sealed with the stream's data key (made
 * on the stream's first sealed write); every other field stays in the clear. One scheme for every
 * stream kind, so a capability declares its sealed fields and never seals by hand.
 */

/** An event as a capability knows it: its type beside its fields. */
export interface DomainEvent {
  readonly type: string;
}

/** The sealed fields of each event type; a type not named seals nothing. */
export type SealedFieldNames = Readonly<Partial<Record<string, readonly string[]>>>;

export interface SealingOptions {
  /**
   * Metadata fields the stream kind seals (a digest of a request is content): each sealed alone,
   * in place, as one value. A value stored in the clear, from before it was sealed, opens as it is.
   */
  metadata?: readonly string[];
}

/** The field holding a sealed event's sealed fields. */
const SEALED = 'sealed';

export class SealedFields {
  constructor(
    private readonly names: SealedFieldNames,
    private readonly options: SealingOptions = {},
  ) {}

  /** The names the events of `type` seal. */
  of(type: string): readonly string[] {
    return this.names[type] ?? [];
  }

  /** The event's data as stored: its sealed fields sealed together, the rest in the clear. */
  async seal(uow: UnitOfWork, keys: StreamKeys, streamId: string, event: DomainEvent): Promise<JsonObject> {
    const { type, ...fields } = event as DomainEvent & JsonObject;
    const names = this.of(type);
    if (names.length === 0) return fields;
    const clear: JsonObject = {};
    const secret: JsonObject = {};
    for (const [name, value] of Object.entries(fields)) (names.includes(name) ? secret : clear)[name] = value;
    clear[SEALED] = await keys.seal(uow, streamId, secret);
    return clear;
  }

  /** An event's metadata as stored: the fields the stream kind seals, each sealed in place. */
  async sealMetadata(uow: UnitOfWork, keys: StreamKeys, streamId: string, metadata: JsonObject): Promise<JsonObject> {
    const stored: JsonObject = { ...metadata };
    for (const name of this.options.metadata ?? []) {
      if (stored[name] !== undefined) stored[name] = await keys.seal(uow, streamId, stored[name]);
    }
    return stored;
  }

  /** The stored metadata opened, or ERASED once the stream's key is destroyed. */
  openMetadata(metadata: JsonObject, open: Opener): JsonObject | Erased {
    return openEachInPlace(metadata, this.options.metadata ?? [], open);
  }

  /**
   * Stored data of an older scheme, where each sealed field of `type` was sealed alone, in place,
   * opened into its clear field; ERASED once the stream's key is destroyed. For an upcaster.
   */
  openFieldByField(type: string, data: JsonObject, open: Opener): JsonObject | Erased {
    return openEachInPlace(data, this.of(type), open);
  }

  /** Whether the events of `type` keep anything sealed, in their fields or their metadata. */
  seals(type: string): boolean {
    return this.of(type).length > 0 || (this.options.metadata?.length ?? 0) > 0;
  }

  /**
   * The stored data opened: the event with its sealed fields back in place, or ERASED once the
   * stream's key is destroyed. Events written before a field was sealed keep it in the clear, and
   * open as they are.
   */
  open<E extends DomainEvent>(type: string, data: JsonObject, open: Opener): E | Erased {
    const names = this.of(type);
    if (names.length === 0) return { type, ...data } as unknown as E;
    const { [SEALED]: sealed, ...clear } = data;
    const secret = typeof sealed === 'string' ? open(sealed) : {};
    if (secret === ERASED) return ERASED;
    return { type, ...clear, ...(secret as JsonObject) } as unknown as E;
  }

  /**
   * Stored data's one sealed value, unopened: for a projection that keeps content sealed in a
   * column until it is used (a webhook signing secret), opened then by openSealed.
   */
  sealedOf(data: JsonObject): string | undefined {
    const sealed = data[SEALED];
    return typeof sealed === 'string' ? sealed : undefined;
  }

  /** The sealed fields one sealed value holds (sealedOf), opened; ERASED once the stream's key is destroyed. */
  openSealed(sealed: string, open: Opener): JsonObject | Erased {
    return open(sealed) as JsonObject | Erased;
  }

  /**
   * A value an older shape sealed alone with the deployment data key `initial` under `context`,
   * before every stream kind sealed under its stream's key (a webhook signing secret of that
   * time), opened: only when it is used, so `initial` can go once `rekey` has sealed it again.
   */
  openSealedByInitial(sealed: string, context: string, keys: StreamKeys): string {
    return keys.deploymentKey.openInitial(sealed, context);
  }

  /** What is left of the event once its stream's key is destroyed: its clear fields, the sealed ones null. */
  erased<E extends DomainEvent>(type: string, data: JsonObject): E {
    const { [SEALED]: _sealed, ...clear } = data;
    return { type, ...clear, ...Object.fromEntries(this.of(type).map((name) => [name, null])) } as unknown as E;
  }
}

/** Each of `names` that holds a sealed value, opened in place; ERASED once the stream's key is destroyed. */
function openEachInPlace(values: JsonObject, names: readonly string[], open: Opener): JsonObject | Erased {
  const opened: JsonObject = { ...values };
  for (const name of names) {
    if (typeof opened[name] !== 'string') continue;
    const value = open(opened[name]);
    if (value === ERASED) return ERASED;
    opened[name] = value as JsonObject[string];
  }
  return opened;
}
