import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatTlogProof, parseTlogProof } from '../../src/client/bundle.js';
import { ProofError } from '../../src/client/merkle.js';
import { noteKeyId, openCheckpoint, parseVerifierKey, toBase64, verifierKeyText, verifyNote } from '../../src/client/note.js';

/**
 * Signed notes and verifier keys against the example of c2sp.org/signed-note, checkpoints against
 * their format, and the tlog-proof bundle's text both ways.
 */

const SPEC_KEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const SPEC_NOTE =
  'This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

async function reason(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProofError);
  return (error as ProofError).reason;
}

/** A fresh Ed25519 key as a note signer: its verifier key and a signing function. */
function signer(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  return {
    vkey: verifierKeyText(name, raw),
    note: (text: string) => `${text}\n\u2014 ${name} ${toBase64(Uint8Array.of(...noteKeyId(name, raw), ...sign(null, Buffer.from(text), privateKey)))}\n`,
  };
}

describe('signed notes', () => {
  it("verifies the spec's example with the spec's verifier key, whose id it recomputes", async () => {
    const key = parseVerifierKey(SPEC_KEY);
    expect(Buffer.from(key.id).toString('hex')).toBe('530d903a');
    expect(verifierKeyText(key.name, key.publicKey)).toBe(SPEC_KEY);
    expect(await verifyNote(SPEC_NOTE, key)).toBe('This is an example message.\n');
  });

  it('refuses a changed byte of the text, another key, a key whose id does not match, a malformed note', async () => {
    const key = parseVerifierKey(SPEC_KEY);
    expect(await reason(verifyNote(SPEC_NOTE.replace('example message', 'example massage'), key))).toBe('bad_signature');
    expect(await reason(verifyNote(SPEC_NOTE, parseVerifierKey(signer('example.com/foo').vkey)))).toBe('wrong_key');
    expect(() => parseVerifierKey(SPEC_KEY.replace('530d903a', '530d903b'))).toThrow(ProofError);
    expect(await reason(verifyNote('no signatures\n', key))).toBe('malformed');
    expect(await reason(verifyNote(SPEC_NOTE.replace('\u2014', '-'), key))).toBe('malformed');
  });

  it('opens a checkpoint only for its origin', async () => {
    const log = signer('svc.example/log');
    const note = log.note(`svc.example/log\n5\n${toBase64(new Uint8Array(32).fill(1))}\n`);
    const head = await openCheckpoint(note, parseVerifierKey(log.vkey), 'svc.example/log');
    expect(head).toEqual({ origin: 'svc.example/log', size: 5, root: new Uint8Array(32).fill(1) });
    expect(await reason(openCheckpoint(note, parseVerifierKey(log.vkey), 'other.example/log'))).toBe('wrong_origin');
    const short = log.note(`svc.example/log\n05\n${toBase64(new Uint8Array(32))}\n`);
    expect(await reason(openCheckpoint(short, parseVerifierKey(log.vkey), 'svc.example/log'))).toBe('malformed');
  });
});

describe('tlog-proof bundles', () => {
  it('formats and parses back, with and without extra data', () => {
    const checkpoint = 'svc.example/log\n2\nAAAA\n\n\u2014 svc.example/log AAAA\n';
    const bundle = { extra: Uint8Array.of(1, 2, 3), index: 1, proof: [new Uint8Array(32).fill(5)], checkpoint };
    const text = formatTlogProof(bundle);
    expect(text).toBe(`c2sp.org/tlog-proof@v1\nextra AQID\nindex 1\n${toBase64(new Uint8Array(32).fill(5))}\n\n${checkpoint}`);
    expect(parseTlogProof(text)).toEqual(bundle);
    const { extra: _, ...bare } = bundle;
    expect(parseTlogProof(formatTlogProof(bare))).toEqual(bare);
    expect(() => parseTlogProof(text.replace('index 1', 'index 01'))).toThrow(ProofError);
    expect(() => parseTlogProof(text.replace('tlog-proof@v1', 'tlog-proof@v2'))).toThrow(ProofError);
  });
});
