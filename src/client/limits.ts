/**
 * The limits and identifier patterns an interaction keeps. Each is declared here once, in the
 * client's folder so that the published package (its MCP tools' schemas) carries the very values
 * the service checks: the service's request schemas (src/sessions/requestSchemas.ts), the rules Ajv
 * cannot express (src/sessions/rules.ts), the human form and the messages are built from these.
 * Lengths count Unicode code points, as JSON Schema does.
 */
export const LIMITS = {
  /** Characters of a title. */
  title: 200,
  /** Characters of an interaction's description. */
  description: 4000,
  /** Characters of an action label, field label, option label, heading text or record label. */
  label: 200,
  /** Characters of a text component. */
  text: 4000,
  /** Characters of a field's description. */
  fieldDescription: 1000,
  /** Components of a Surface. */
  components: 100,
  /** Actions of a revision. */
  actions: 5,
  /** Properties of a record component. */
  recordFields: 50,
  /** Entries of a field's option_labels. */
  optionLabels: 100,
  /** Rows of a display table. */
  tableRows: 100,
  /** Characters of a component's type. */
  componentType: 64,
  /** UTF-8 bytes of the canonical JSON of a stored interaction; above it is 413 PAYLOAD_TOO_LARGE. */
  surfaceBytes: 131072,
} as const;

/** Identifier patterns, as JSON Schema `pattern` strings. */
export const PATTERNS = {
  actionId: '^[a-z][a-z0-9_]{0,31}$',
  fieldName: '^[a-z][a-z0-9_]{0,63}$',
  /** A revision number as a path segment or form value: up to 9 digits, no leading zero. */
  revision: '^[1-9][0-9]{0,8}$',
  sessionId: '^ses_[0-9A-HJKMNP-TV-Z]{26}$',
  /**
   * The caller's own reference for a Session (client_reference_id): 1 to 200 visible ASCII
   * characters, as an Idempotency-Key is, so it travels in a query string as it is written in a body.
   */
  clientReferenceId: '^[\\x21-\\x7E]{1,200}$',
} as const;

/** What each pattern asks for, in the words of a refusal ("… must be an action ID: …"). */
export const PATTERN_WORDS: Record<keyof typeof PATTERNS, string> = {
  actionId: 'an action ID: 1 to 32 characters, a lower-case letter, then lower-case letters, digits or underscores',
  fieldName: 'a field name: 1 to 64 characters, a lower-case letter, then lower-case letters, digits or underscores',
  revision: 'a positive integer of up to 9 digits',
  sessionId: 'a Session ID (ses_ followed by 26 characters)',
  clientReferenceId: 'a client reference: 1 to 200 visible ASCII characters (no space)',
};

