import type { ServerResponse } from 'node:http';
import { systemClock } from '../../src/clock.js';
import { testConfig } from '../support/config.js';
import type { ReceivedRequest } from '../support/https-receiver.js';
import { useTestApp } from '../support/lifecycle.js';
import { useServiceProcesses } from '../support/service-processes.js';
import { useReceiver } from '../webhooks/support.js';

/**
 * The fault suite's set-up: service processes started as an operator runs them, over a database
 * of each test's own, on the system clock; the test's own app (in process, same database) creates
 * Sessions, registers the endpoint and reads the results; a real HTTPS receiver takes deliveries.
 */
export function useFaultTest() {
  const receiver = useReceiver();
  const config = testConfig({ webhookTestEgress: 'loopback' });
  const { db, t } = useTestApp({ config, clock: systemClock }, 'each test');
  const processes = useServiceProcesses(db, config);
  return { receiver, config, db, t, processes };
}

/** Every status the receiver answered, by webhook-id, in order. */
export type Answers = Map<string, number[]>;

/**
 * Answers each delivery with the status `decide` picks (`hold`: never answer, as a receiver whose
 * sender dies mid-request sees it) and records what it answered.
 */
export function answerWith(
  receiver: { respond(responder: (request: ReceivedRequest, res: ServerResponse) => void): void },
  decide: (request: ReceivedRequest, nth: number) => number | 'hold',
  headers: Record<string, string> = {},
): Answers {
  const answers: Answers = new Map();
  let nth = 0;
  receiver.respond((request, res) => {
    const status = decide(request, ++nth);
    if (status === 'hold') return;
    const id = request.headers['webhook-id']!;
    answers.set(id, [...(answers.get(id) ?? []), status]);
    res.writeHead(status, { 'content-type': 'application/json', ...(status >= 300 ? headers : {}) }).end('{}');
  });
  return answers;
}

/** How many 2xx answers each webhook-id got. */
export const successesById = (answers: Answers): number[] => [...answers.values()].map((statuses) => statuses.filter((s) => s < 300).length);
