import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { benchServer } from './support/database.js';

/**
 * `npm run bench`: runs every benchmark file in bench/ in turn, each in its own process, over one
 * PostgreSQL server (DATABASE_URL, else one embedded server for the whole run).
 */

const folder = fileURLToPath(new URL('.', import.meta.url));
const files = (await readdir(folder)).filter((f) => f.endsWith('.ts') && f !== 'index.ts').sort();

function run(file: string, databaseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${folder}${file}`], {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const server = await benchServer();
let failed = 0;
try {
  for (const file of files) {
    console.log(`\n== bench/${file}`);
    if ((await run(file, server.url)) !== 0) failed++;
  }
} finally {
  await server.stop();
}
process.exitCode = failed === 0 ? 0 : 1;
