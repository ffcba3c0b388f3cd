import { readFile, writeFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { TestApp } from '../support/app.js';
import { postForm } from '../human/form-post.js';

/** What the audit tests share: answering as a person does, and export files read and rewritten. */

let answers = 0;

/** A person's answer through the human link, on the given revision: a signed receipt with it. */
export async function answerOn(t: TestApp, token: string, revision: number, amount = '42.5'): Promise<void> {
  const body = new URLSearchParams([
    ['client_event_id', `cev_${(++answers).toString().padStart(16, '0')}`],
    ['surface_revision', String(revision)],
    ['action_id', 'approve'],
    ['data.amount', amount],
  ]).toString();
  const res = await postForm(t, token, body);
  expect(res.statusCode, res.body).toBe(200);
}

/** One line of an export, as a test reads and edits it. */
export type Line = Record<string, unknown> & { stream_id: string; stream_version: number; type: string; data: string };

export async function readExport(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

export async function writeExport(file: string, lines: readonly Line[]): Promise<void> {
  await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

export const lineOf = (lines: readonly Line[], streamId: string, version: number): Line => {
  const line = lines.find((l) => l.stream_id === streamId && l.stream_version === version);
  if (!line) throw new Error(`the export has no ${streamId} v${version}`);
  return line;
};
