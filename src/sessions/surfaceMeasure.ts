import { canonicalJson, sha256Hex } from '../../eventstore/index.js';
import type { Interaction } from './interaction.js';

/**
 * The canonical text (RFC 8785) of each interaction measured, by the stored object: its digest
 * hashes the same bytes, so a creation or a publication canonicalizes its Surface once. An
 * interaction is never changed once it is checked (rules.ts returns the stored form).
 */
const canonicalTexts = new WeakMap<Interaction, string>();

/**
 * The Surface measure the size limit applies to: UTF-8 bytes of the RFC 8785 canonical JSON of
 * the interaction as stored (after validation, so every string is well-formed Unicode).
 */
export function surfaceMeasure(interaction: Interaction): number {
  const text = canonicalJson(interaction);
  canonicalTexts.set(interaction, text);
  return Buffer.byteLength(text, 'utf8');
}

/** What a receipt names a revision by (`revision_sha256`): SHA-256 of the stored interaction's canonical JSON, in hex. */
export const interactionSha256 = (interaction: Interaction): string => sha256Hex(canonicalTexts.get(interaction) ?? canonicalJson(interaction));
