import type { Routes } from '../../src/http/app.js';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/http/logging.js';
import type { TestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';

/**
 * The real app (every capability) plus any extra routes a test file needs, logging at debug level
 * into memory so a test can read exactly what would reach the log.
 */
export function useHarness(extra: Routes[] = [], config: Partial<Config> = {}): { t: TestApp; logLines: string[] } {
  /** Every line the service logged, as written. */
  const logLines: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const { t } = useTestApp({ config, log, extraCapabilities: extra });
  return { t, logLines };
}
