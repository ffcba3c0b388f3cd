/**
 * Where a value sits in a request, written as a person reads it: `interaction.actions[2].id`,
 * `data["odd key"]`. Refusals open with the path of what they refuse.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const KEY_SHOWN_MAX = 60;

/** The path of a property or item of the value at `path` ('' is the root). */
export function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  const quoted = JSON.stringify(key);
  return `${path}[${quoted.length > KEY_SHOWN_MAX ? `${quoted.slice(0, KEY_SHOWN_MAX - 2)}…"` : quoted}]`;
}

/** The segments of an RFC 6901 JSON Pointer, decoded. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * The path of a JSON Pointer into `root`: a segment is an item index where the value it indexes
 * is an array, and a property name everywhere else.
 */
export function pathOf(root: unknown, pointer: string): { path: string; value: unknown } {
  let path = '';
  let value = root;
  for (const segment of pointerSegments(pointer)) {
    const index = Array.isArray(value) ? Number(segment) : undefined;
    path = child(path, index ?? segment);
    value = value !== null && typeof value === 'object' && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return { path, value };
}
