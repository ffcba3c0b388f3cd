/**
 * What JSON.parse would change without a word, found in a text it has already parsed (I-JSON,
 * RFC 7493): a member name repeated in one object (the last would win), an integer outside
 * ±(2^53 - 1) (it would be rounded), a number too large for a double (it would be Infinity) or too
 * small (a non-zero number would be 0). Each is reported with the JSON Pointer of where it is.
 */

export type IJsonReason = 'duplicate_member' | 'number_precision' | 'number_range';

export interface IJsonProblem {
  reason: IJsonReason;
  /** RFC 6901 JSON Pointer of the value or member at fault ('' is the whole text). */
  pointer: string;
}

const INTEGER = /^-?[0-9]+$/;

interface Container {
  /** Member names seen so far; undefined for an array. */
  names: Set<string> | undefined;
  /** The current member name or item index. */
  at: string | number;
}

const escapePointer = (segment: string | number): string => String(segment).replaceAll('~', '~0').replaceAll('/', '~1');

function pointerOf(stack: Container[], last?: string): string {
  const segments = stack.map((container) => escapePointer(container.at));
  if (last !== undefined) segments.push(escapePointer(last));
  return segments.map((segment) => `/${segment}`).join('');
}

function numberProblem(token: string): IJsonReason | undefined {
  const value = Number(token);
  if (INTEGER.test(token)) return Number.isSafeInteger(value) ? undefined : 'number_precision';
  if (!Number.isFinite(value)) return 'number_range';
  // A mantissa with a non-zero digit that parsed to zero underflowed.
  if (value === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return 'number_range';
  return undefined;
}

/** The end (exclusive) of the string literal opening at `start`, a `"`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const next = text.indexOf('"', i);
    let backslashes = 0;
    for (let j = next - 1; text.charCodeAt(j) === 92; j--) backslashes++;
    if (backslashes % 2 === 0) return next + 1;
    i = next + 1;
  }
}

/** The first I-JSON problem of `text`, which must be a JSON text JSON.parse accepted. */
export function iJsonProblem(text: string): IJsonProblem | undefined {
  const stack: Container[] = [];
  let expectName = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    switch (char) {
      case '{':
        stack.push({ names: new Set(), at: '' });
        expectName = true;
        i++;
        break;
      case '[':
        stack.push({ names: undefined, at: 0 });
        expectName = false;
        i++;
        break;
      case '}':
      case ']':
        stack.pop();
        expectName = false;
        i++;
        break;
      case ',': {
        const top = stack[stack.length - 1]!;
        expectName = top.names !== undefined;
        if (!top.names) top.at = (top.at as number) + 1;
        i++;
        break;
      }
      case '"': {
        const end = stringEnd(text, i);
        if (expectName) {
          const literal = text.slice(i, end);
          const name = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
          const top = stack[stack.length - 1]!;
          if (top.names!.has(name)) return { reason: 'duplicate_member', pointer: pointerOf(stack.slice(0, -1), name) };
          top.names!.add(name);
          top.at = name;
          expectName = false;
        }
        i = end;
        break;
      }
      default: {
        if (char === '-' || (char >= '0' && char <= '9')) {
          let end = i + 1;
          while (end < text.length && '0123456789+-.eE'.includes(text[end]!)) end++;
          const reason = numberProblem(text.slice(i, end));
          if (reason) return { reason, pointer: pointerOf(stack) };
          i = end;
        } else {
          i++;
        }
      }
    }
  }
  return undefined;
}
