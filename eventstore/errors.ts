/** The stream was not at the version the caller decided against. Nothing was written. */
export class StreamVersionConflict extends Error {
  constructor(readonly streamId: string, readonly expectedVersion: number) {
    super(`stream ${streamId} is not at version ${expectedVersion}`);
    this.name = 'StreamVersionConflict';
  }
}

/** A unit of work was used after it committed or rolled back: a bug, never a refusal. */
export class UnitOfWorkEnded extends Error {
  constructor() {
    super('this unit of work has already ended');
    this.name = 'UnitOfWorkEnded';
  }
}

