import { Session } from 'node:inspector/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { EVENTS_CHANNEL } from '../../eventstore/index.js';
import { ManualClock } from '../../src/clock.js';
import type { TestApp } from '../support/app.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession } from '../support/sessions.js';
import { errorCodeOf, postForm } from '../human/form-post.js';
import { registerVerified, useReceiver } from '../webhooks/support.js';

/**
 * The way of an accepted submission (a person's answer posted on the human link, accepted by the
 * Session, its receipt signed and its webhook delivery queued by the reactions, appended) is the
 * repository's source files that run while it is served: measured, not traced by hand, as V8's
 * precise coverage of one submission in this process after a first one has warmed every cache.
 * The figures are ceilings: the way may get shorter, never longer unnoticed. docs/architecture.md.
 */

const MAX_FILES = 57;
const MAX_FOLDERS = 16;

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const SOURCE = /^(src|eventstore|projections)\//;

const receiver = useReceiver();
const { t } = useTestApp(() => ({ clock: new ManualClock(new Date()), config: { webhookTestEgress: 'loopback' } }));

let answered = 0;

/** Answers a new Session on its human link as the page's form does; fails unless accepted. */
async function submitAnswer(app: TestApp, token: string): Promise<void> {
  const body = new URLSearchParams([
    ['client_event_id', `cev_way_${String(++answered).padStart(12, '0')}`],
    ['surface_revision', '1'],
    ['data.amount', '12.5'],
    ['action_id', 'approve'],
  ]);
  const res = await postForm(app, token, body.toString());
  expect(res.statusCode, errorCodeOf(res.body)).toBe(200);
}

/**
 * The test runner defines each export of a module as a getter at its top, `() => { try { return
 * name } catch {} }`, called wherever the export is used: not code of the file, and absent when
 * Node runs it. A file used only that way (its constants read, its exports passed through) has
 * run nothing of its own.
 */
const EXPORT_GETTER = /^\(\) => \{ try \{ return [\w$.]+ \} catch \{\} \}$/;

/** The repository's source files of which a function ran since coverage was last taken. */
async function filesRun(inspector: Session): Promise<string[]> {
  const { result } = await inspector.post('Profiler.takePreciseCoverage');
  const files: string[] = [];
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = relative(ROOT, fileURLToPath(script.url));
    const called = script.functions.filter((f) => f.ranges[0]!.count > 0);
    if (!SOURCE.test(file) || called.length === 0) continue;
    const { scriptSource } = await inspector.post('Debugger.getScriptSource', { scriptId: script.scriptId });
    if (called.some(({ ranges: [range] }) => !EXPORT_GETTER.test(scriptSource.slice(range!.startOffset, range!.endOffset)))) files.push(file);
  }
  return [...new Set(files)].sort();
}

it(`serves an accepted submission through at most ${MAX_FILES} source files in at most ${MAX_FOLDERS} folders`, async () => {
  await registerVerified(t, receiver);
  const [warm, measured] = [await createSession(t), await createSession(t)];
  await submitAnswer(t, warm.token);

  const inspector = new Session();
  inspector.connect();
  try {
    await inspector.post('Profiler.enable');
    await inspector.post('Debugger.enable');
    await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await filesRun(inspector);
    // What the commit wakes in this process (held reads, the view cache) runs when its NOTIFY
    // comes back: always counted, rather than as the race with the response falls.
    const woken = new Promise<void>((resolve) => {
      const stop = t.ctx.wakeups.on(EVENTS_CHANNEL, (payload) => {
        if (!payload.split(' ').includes(measured.id)) return;
        stop();
        resolve();
      });
    });
    await submitAnswer(t, measured.token);
    await woken;
    const files = await filesRun(inspector);
    const folders = [...new Set(files.map((file) => dirname(file)))].sort();
    console.log(`the way of a submission: ${files.length} files in ${folders.length} folders\n${folders.map((folder) => `${folder}/\n${files.filter((f) => dirname(f) === folder).map((f) => `  ${f.slice(folder.length + 1)}`).join('\n')}`).join('\n')}`);
    // Measured: the accepting code ran (a way of nothing would pass any ceiling).
    expect(files).toContain('eventstore/decider.ts');
    expect(files.length).toBeLessThanOrEqual(MAX_FILES);
    expect(folders.length).toBeLessThanOrEqual(MAX_FOLDERS);
  } finally {
    await inspector.post('Profiler.stopPreciseCoverage');
    await inspector.post('Debugger.disable');
    inspector.disconnect();
  }
});
