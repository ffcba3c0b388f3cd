/** The stream was not at the version the caller decided against. Nothing was written. */
export class StreamVersionConflict extends Error {
  constructor(readonly streamId: string, readonly expectedVersion: number) {
    super(`stream ${streamId} is not at version ${expectedVersion}`);
    this.name = 'StreamVersionConflict';
  }
}

/**
 * A row a command decided on, read without a lock, changed before the command could hold it: it
 * runs again (EventStore.command), as after a lost append race. Nothing was written.
 */
export class StaleRead extends Error {
  constructor(readonly what: string) {
    super(`${what} changed while the command ran`);
    this.name = 'StaleRead';
  }
}

/** A unit of work was used after it committed or rolled back: a bug, never a refusal. */
export class UnitOfWorkEnded extends Error {
  constructor() {
    super('this unit of work has already ended');
    this.name = 'UnitOfWorkEnded';
  }
}

