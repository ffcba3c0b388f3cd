import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INITIAL_KEY_ID } from '../eventstore/index.js';
import type { Config } from './config.js';

interface DevSecrets {
  ownerKey: string;
  receiptKeys: string;
  dataKey: string;
}

function generate(): DevSecrets {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    ownerKey: `svc_owner_${randomBytes(32).toString('base64url')}`,
    receiptKeys: JSON.stringify({ keys: [{ ...jwk, kid: `dev-${randomBytes(6).toString('hex')}`, alg: 'EdDSA', use: 'sig' }] }),
    dataKey: randomBytes(32).toString('base64url'),
  };
}

function gitHead(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return undefined;
  }
}

/**
 * Development only: fills every secret the environment left unset from a file generated once in
 * the data directory, and a build identity from the checkout, so `npm start` is ready on a fresh
 * clone. Production gets none of this: missing secrets leave it not ready.
 */
export async function applyDevDefaults(config: Config): Promise<{ config: Config; secretsFile: string }> {
  const secretsFile = join(config.dataDir, 'dev-secrets.json');
  let secrets: DevSecrets;
  try {
    secrets = JSON.parse(await readFile(secretsFile, 'utf8')) as DevSecrets;
  } catch {
    secrets = generate();
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return {
    secretsFile,
    config: {
      ...config,
      ownerKey: config.ownerKey ?? secrets.ownerKey,
      receiptKeys: config.receiptKeys ?? secrets.receiptKeys,
      dataKeys: config.dataKeys ?? `${INITIAL_KEY_ID}:${secrets.dataKey}`,
      build: {
        ...config.build,
        fallback: { gitSha: gitHead(), buildId: 'dev', buildTime: new Date().toISOString() },
      },
    },
  };
}
