/** The one source of "now". Tests inject a clock they move by hand; nothing else reads Date.now. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A time as the API writes it (ISO 8601, UTC), or null for none. */
export const isoOrNull = (value: Date | null): string | null => value?.toISOString() ?? null;
