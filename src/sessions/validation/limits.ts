/**
 * The limits of SPEC 8 and the identifier patterns of SPEC 2.1 that an interaction must keep.
 * Lengths count Unicode code points (see `charCount` in read.ts), the way JSON Schema's
 * minLength/maxLength do, so an owner's limits and a person's answers are measured alike.
 */

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 4000;
/** Action label, field label, option label, heading text, record label. */
export const LABEL_MAX = 200;
export const TEXT_MAX = 4000;
export const FIELD_DESCRIPTION_MAX = 1000;

export const COMPONENTS_MAX = 100;
export const ACTIONS_MAX = 5;
export const RECORD_FIELDS_MAX = 50;
export const OPTION_LABELS_MAX = 100;
export const TABLE_ROWS_MAX = 100;
export const COMPONENT_TYPE_MAX = 64;

/** UTF-8 bytes of the canonical Surface JSON; a Surface above this is 413 PAYLOAD_TOO_LARGE. */
export const SURFACE_MEASURE_MAX = 131072;

export const ACTION_ID_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
export const FIELD_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
