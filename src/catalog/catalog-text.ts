/**
 * A skill's name or description as the catalog lists it: on one line,
 * without invisible or control characters, with markup escaped (catalogText),
 * and cut to a length at a word boundary (shorten). Pure; a clean text is
 * given back as it is, so listing a clean library copies nothing.
 */

const ELLIPSIS = '…';

/**
 * Any markup character, any control or invisible format character (line
 * breaks, bidi overrides, zero-width characters), and any whitespace that
 * is not a single inner space: what catalogText has to rewrite.
 */
const NEEDS_REWRITE = /[<>\p{Cc}\p{Cf}]|[^\S ]| {2}|^ | $/u;

/** Invisible characters, and controls that are not whitespace: dropped. NEL is a line break, so it becomes a space instead. */
const INVISIBLE = /\p{Cf}|(?![\t\n\v\f\r\u0085])\p{Cc}/gu;

const SPACES = /[\s\u0085]+/g;

const MARKUP = /[<>]/g;

/** A character outside ASCII that NEEDS_REWRITE matches on its own (control, format or whitespace). */
const REWRITTEN_CHAR = /^[\p{Cc}\p{Cf}\s]$/u;

/** REWRITTEN_CHAR's answer by UTF-16 code, for codes met so far: a text holds few distinct ones. */
const rewrittenCodes = new Map<number, boolean>();

const MAX_REMEMBERED_CODES = 4096;

/**
 * NEEDS_REWRITE.test(text), a character at a time: the expression costs about
 * 1 µs a skill name and 12 µs a description (a ranked catalog checks some 270
 * of each per request); printable ASCII is decided by its code.
 */
function needsRewrite(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  if (text.charCodeAt(0) === 32 || text.charCodeAt(n - 1) === 32) return true;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x3c || code === 0x3e || (code === 32 && previous === 32)) return true;
    if (code >= 0x7f && rewritten(text, code)) return true;
    previous = code;
  }
  return false;
}

/** Whether a code at or past U+007F makes `text` need NEEDS_REWRITE's rewrite; for a surrogate, the expression decides over the whole text. */
function rewritten(text: string, code: number): boolean {
  if (code >= 0xd800 && code <= 0xdfff) return NEEDS_REWRITE.test(text);
  let known = rewrittenCodes.get(code);
  if (known === undefined) {
    known = REWRITTEN_CHAR.test(String.fromCharCode(code));
    if (rewrittenCodes.size < MAX_REMEMBERED_CODES) rewrittenCodes.set(code, known);
  }
  return known;
}

/**
 * A name or description as the catalog lists it: on one line (every run of
 * whitespace and line breaks, U+2028/2029 and NEL included, is one space),
 * without invisible or control characters, and with `<` and `>` escaped, so
 * nothing a skill's frontmatter holds can start a line of its own or open or
 * close a tag. Returns `text` itself when it needs none of that (the common
 * case), so listing a clean library copies nothing.
 */
export function catalogText(text: string): string {
  if (!needsRewrite(text)) return text;
  const flat = text.replace(INVISIBLE, '').replace(SPACES, ' ').trim();
  return flat.replace(MARKUP, (c) => (c === '<' ? '&lt;' : '&gt;'));
}

/**
 * `text` cut to at most `max` characters (ellipsis included), at the last
 * word boundary when there is one in the second half, else mid-word; never
 * inside an escaped `&lt;` or `&gt;`.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return ELLIPSIS.slice(0, Math.max(0, max));
  const room = max - ELLIPSIS.length;
  const space = text.lastIndexOf(' ', room);
  const cut = space >= room / 2 ? space : room;
  // A partial escape goes, and trailing punctuation too, but not the `;` that ends an escape.
  return `${text
    .slice(0, cut)
    .replace(/&[lg]?t?$/, '')
    .replace(/(?:[\s,:.\-–—]|(?<!&[lg]t);)+$/u, '')}${ELLIPSIS}`;
}
