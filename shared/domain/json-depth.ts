import { DomainError } from './errors.ts';

/**
 * The nesting limit for request JSON (docs/security-and-limits.md): checked on the raw text before
 * anything parses or walks it, so no recursive walk of request data is ever deeper than this.
 */
export const maxJsonDepth = 32;

/**
 * The deepest `[`/`{` nesting of a JSON text, counted without recursion (strings and their
 * escapes are skipped). Works on any text; it does not validate the JSON.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Thrown by walks over already-parsed data that exceed maxJsonDepth: an invalid request (400 `body_too_deep`). */
export class JsonTooDeep extends DomainError {
  constructor() {
    super('invalid', `The request is nested deeper than ${maxJsonDepth} levels.`, {
      errors: { '(root)': [`nested deeper than ${maxJsonDepth} levels`] },
      code: 'body_too_deep',
    });
  }
}
