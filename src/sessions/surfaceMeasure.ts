import { canonicalJson } from '../../eventstore/index.js';
import type { Interaction } from './interaction.js';

/**
 * The Surface measure the size limit applies to: UTF-8 bytes of the RFC 8785 canonical JSON of
 * the interaction as stored (after validation, so every string is well-formed Unicode).
 */
export function surfaceMeasure(interaction: Interaction): number {
  return Buffer.byteLength(canonicalJson(interaction), 'utf8');
}
