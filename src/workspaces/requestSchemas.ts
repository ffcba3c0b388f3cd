/** What the workspace routes accept, as Ajv checks it (schemas.ts words the contract). */

/** A display name: what a person reads as who asks, on the page and in the mail. */
export const DISPLAY_NAME_MAX = 100;

export const workspaceRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['display_name'],
  properties: { display_name: { type: 'string', minLength: 1, maxLength: DISPLAY_NAME_MAX, format: 'nonblank-text' } },
} as const;
