/**
 * Unicode facts about skill names, shared by validation and discovery.
 * `foldName` maps names that look the same to one key (so two skills that a
 * reader cannot tell apart can be reported); `invisibleOrControl` finds the
 * characters that must never be in a name at all, because they hide text or
 * break the one-line-per-skill catalog. Pure functions; never throw.
 */

/**
 * Cyrillic and Greek letters (lower case, after folding) drawn like a Latin
 * letter. Upper-case look-alikes are covered through their lower-case form:
 * Cyrillic `Н` folds to `н`, which is mapped to `h` because `H` folds to `h`.
 * Not the whole Unicode confusables table: the letters seen in practice.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ѐ: 'e',
  ё: 'e',
  һ: 'h',
  н: 'h',
  і: 'i',
  ї: 'i',
  ӏ: 'l',
  ј: 'j',
  к: 'k',
  м: 'm',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  с: 'c',
  ѕ: 's',
  т: 't',
  у: 'y',
  ү: 'y',
  ԝ: 'w',
  х: 'x',
  ԁ: 'd',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'm',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ζ: 'z',
  ω: 'w',
  // Latin letters that look like others
  ı: 'i',
  ȷ: 'j',
  ɡ: 'g',
};

const LOOK_ALIKE_PATTERN = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * The key two names share when a reader could not tell them apart:
 * compatibility-folded (fullwidth `ｐｄｆ` is `pdf`), lower case, combining
 * marks removed (`pdf\u0301` is `pdf`), common Cyrillic and Greek look-alikes
 * mapped to Latin (Cyrillic `р` is `p`).
 */
export function foldName(name: string): string {
  // NFKD splits base letters from their marks (and applies compatibility
  // mappings); dropping the marks and recomposing is NFKC without accents.
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .normalize('NFKC')
    .replace(LOOK_ALIKE_PATTERN, (letter) => LOOK_ALIKES[letter] ?? letter);
}

/** Zero-width characters and invisible fillers (outside the Cf category for some). */
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0, 0x034f]);
const BIDI_CONTROLS = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const LINE_BREAKS = new Set([0x0a, 0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]);

/** What kind of hidden character `codePoint` is, or undefined for a visible one. */
function hiddenKind(codePoint: number): string | undefined {
  if (LINE_BREAKS.has(codePoint)) return 'a line break';
  if (BIDI_CONTROLS.has(codePoint)) return 'a bidirectional control character';
  if (ZERO_WIDTH.has(codePoint)) return 'a zero-width character';
  // Variation selectors change how the previous character is drawn, invisibly.
  if ((codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef)) return 'a variation selector';
  const char = String.fromCodePoint(codePoint);
  if (/\p{Cc}/u.test(char)) return 'a control character';
  if (/[\p{Cf}\p{Zl}\p{Zp}]/u.test(char)) return 'an invisible formatting character';
  return undefined;
}

/**
 * A description of the first character in `name` that is invisible or a
 * control (zero-width, bidi control, control, line or paragraph separator),
 * such as `a line break (U+2028) at character 4`; undefined when there is
 * none. Such characters let a name hide text or forge a catalog line.
 */
export function invisibleOrControl(name: string): string | undefined {
  let position = 0;
  for (const char of name) {
    position++;
    const codePoint = char.codePointAt(0) ?? 0;
    // Printable ASCII is the common case: skip the checks.
    if (codePoint >= 0x20 && codePoint < 0x7f) continue;
    const kind = hiddenKind(codePoint);
    if (kind) return `${kind} (U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}) at character ${position}`;
  }
  return undefined;
}

/**
 * `text` with every invisible or control character written as `\u{XXXX}`,
 * so a message can quote a name without the name breaking or hiding part of
 * the message.
 */
export function escapeInvisible(text: string): string {
  let out = '';
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    const visible = (codePoint >= 0x20 && codePoint < 0x7f) || hiddenKind(codePoint) === undefined;
    out += visible ? char : `\\u{${codePoint.toString(16).toUpperCase().padStart(4, '0')}}`;
  }
  return out;
}
