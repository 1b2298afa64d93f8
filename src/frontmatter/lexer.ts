/**
 * YAML-subset lexer: frontmatter text (`\n` line endings) -> tokens with
 * offsets, pulled one at a time by the composer.
 *
 * Two YAML constructs depend on the indentation of the node that contains
 * them (a plain scalar continued on the next lines, a block scalar's
 * content), which only the composer knows; the composer reads those through
 * `continuePlain` and `blockScalar`, passing that indentation, the way the
 * YAML grammar is parameterised by it. Everything else is context free
 * apart from flow depth, which the lexer tracks itself.
 *
 * Single pass over char codes; every scan moves forward; no regular
 * expressions, so time stays linear in the input.
 */
import type { DiagnosticCode } from '../diagnostics.js';

export type TokenKind =
  | 'eof'
  | 'seq' // `- ` block sequence entry
  | 'colon' // `: ` mapping value indicator
  | 'plain'
  | 'single'
  | 'double'
  | 'block' // `|` or `>` block scalar header; content is read by blockScalar()
  | 'seqStart'
  | 'seqEnd'
  | 'mapStart'
  | 'mapEnd'
  | 'comma'
  | 'explicitKey' // `? `
  | 'anchor'
  | 'alias'
  | 'tag'
  | 'directive'
  | 'docMarker' // `---` or `...` at the start of a line
  | 'reserved' // a character no plain scalar may start with (`@`, a backquote, ...)
  | 'error';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** 0-based line in the frontmatter text. */
  line: number;
  /** 0-based column. */
  col: number;
  /** First token on its line. */
  lineStart: boolean;
  /** Decoded text for scalars; the header for block scalars; the message for errors. */
  value: string;
  /** Quoted scalars: least indentation of their continuation lines (Infinity on one line). */
  contIndent: number;
  /** Block scalars: -1 strip (`-`), 0 clip, 1 keep (`+`). */
  chomp: number;
  /** Block scalars: explicit indentation indicator, 0 when absent. */
  indentIndicator: number;
  /** Error tokens: the diagnostic code. */
  code: DiagnosticCode | '';
}

const SPACE = 32;
const TAB = 9;
const LF = 10;
const HASH = 35;
const COLON = 58;
const DASH = 45;
const DOT = 46;
const QUESTION = 63;
const COMMA = 44;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;
const PIPE = 124;
const GT = 62;
const AMP = 38;
const STAR = 42;
const BANG = 33;
const PERCENT = 37;
const AT = 64;
const BACKQUOTE = 96;
const PLUS = 43;

function isFlowIndicator(c: number): boolean {
  return c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE;
}

/** Space, tab, line feed, or past the end (-1). */
function isBreakOrBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === -1;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** Double-quoted single-character escapes (YAML 1.2 section 5.7). */
function simpleEscape(c: number): string | undefined {
  switch (c) {
    case 48: return '\0';
    case 97: return '\x07';
    case 98: return '\b';
    case 116:
    case TAB: return '\t';
    case 110: return '\n';
    case 118: return '\v';
    case 102: return '\f';
    case 114: return '\r';
    case 101: return '\x1b';
    case SPACE: return ' ';
    case DQUOTE: return '"';
    case 47: return '/';
    case BACKSLASH: return '\\';
    case 78: return '\x85';
    case 95: return '\xa0';
    case 76: return '\u2028';
    case 80: return '\u2029';
    default: return undefined;
  }
}

export interface BlockScalarResult {
  value: string;
  /** Set when leading empty lines are more indented than the content (YAML requires an indicator then). */
  badIndent: boolean;
}

export class Lexer {
  private pos = 0;
  private line = 0;
  private lineOff = 0;
  private atLineStart = true;
  private flowDepth = 0;
  private prevKind: TokenKind = 'eof';
  private peeked: Token | null = null;

  constructor(private readonly src: string) {
    // A byte order mark opening the YAML stream is not content.
    if (src.charCodeAt(0) === 0xfeff) this.pos = this.lineOff = 1;
  }

  peek(): Token {
    if (this.peeked === null) this.peeked = this.lex();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = null;
    return token;
  }

  private code(i: number): number {
    return i < this.src.length ? this.src.charCodeAt(i) : -1;
  }

  private newline(at: number): void {
    this.line++;
    this.lineOff = at;
    this.atLineStart = true;
  }

  private make(kind: TokenKind, start: number, end: number, value: string): Token {
    const token: Token = {
      kind,
      start,
      end,
      line: this.line,
      col: start - this.lineOff,
      lineStart: this.atLineStart,
      value,
      contIndent: Infinity,
      chomp: 0,
      indentIndicator: 0,
      code: '',
    };
    return token;
  }

  private error(code: DiagnosticCode, start: number, message: string): Token {
    const token = this.make('error', start, start, message);
    token.code = code;
    this.pos = this.src.length;
    return token;
  }

  /** Skips spaces, tabs, comments and line breaks. */
  private skipBlank(): void {
    const src = this.src;
    let i = this.pos;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === SPACE || c === TAB) {
        i++;
      } else if (c === LF) {
        i++;
        this.newline(i);
      } else if (c === HASH && (i === this.lineOff || isBreakOrBlank(this.code(i - 1)))) {
        while (i < src.length && src.charCodeAt(i) !== LF) i++;
      } else {
        break;
      }
    }
    this.pos = i;
  }

  private lex(): Token {
    this.skipBlank();
    const start = this.pos;
    if (start >= this.src.length) return this.make('eof', start, start, '');
    // Quoted scalars may span lines: a token's position is where it starts.
    const line = this.line;
    const col = start - this.lineOff;
    const lineStart = this.atLineStart;
    const token = this.lexAt(start);
    if (token.kind !== 'error') {
      token.line = line;
      token.col = col;
      token.lineStart = lineStart;
    }
    this.atLineStart = false;
    this.prevKind = token.kind;
    return token;
  }

  private lexAt(start: number): Token {
    const c = this.src.charCodeAt(start);
    const after = this.code(start + 1);
    const flow = this.flowDepth > 0;
    if (this.atLineStart && !flow) {
      for (let i = this.lineOff; i < start; i++) {
        if (this.src.charCodeAt(i) === TAB) return this.error('YAML_TAB_INDENT', i, 'tab used for indentation');
      }
    }
    if ((c === DASH || c === DOT) && start === this.lineOff && this.isDocMarker(start)) {
      this.pos = start + 3;
      return this.make('docMarker', start, start + 3, this.src.slice(start, start + 3));
    }
    switch (c) {
      case DASH:
        if (isBreakOrBlank(after)) return this.single('seq', start);
        break;
      case QUESTION:
        if (isBreakOrBlank(after)) return this.single('explicitKey', start);
        break;
      case COLON:
        if (
          isBreakOrBlank(after) ||
          (flow &&
            (isFlowIndicator(after) ||
              this.prevKind === 'single' ||
              this.prevKind === 'double' ||
              this.prevKind === 'seqEnd' ||
              this.prevKind === 'mapEnd'))
        ) {
          return this.single('colon', start);
        }
        break;
      case LBRACKET:
        this.flowDepth++;
        return this.single('seqStart', start);
      case LBRACE:
        this.flowDepth++;
        return this.single('mapStart', start);
      case RBRACKET:
      case RBRACE:
        if (!flow) return this.single('reserved', start);
        this.flowDepth--;
        return this.single(c === RBRACKET ? 'seqEnd' : 'mapEnd', start);
      case COMMA:
        return this.single(flow ? 'comma' : 'reserved', start);
      case DQUOTE:
        return this.doubleQuoted(start);
      case SQUOTE:
        return this.singleQuoted(start);
      case PIPE:
      case GT:
        return flow ? this.single('reserved', start) : this.blockHeader(start);
      case AMP:
        return this.word('anchor', start);
      case STAR:
        return this.word('alias', start);
      case BANG:
        return this.word('tag', start);
      case PERCENT:
        return this.single(start === this.lineOff ? 'directive' : 'reserved', start);
      case AT:
      case BACKQUOTE:
      case HASH:
        return this.single('reserved', start);
      default:
        break;
    }
    const end = this.scanPlainLine(start);
    const token = this.make('plain', start, end, this.src.slice(start, end));
    this.pos = end;
    return token;
  }

  /** `---` or `...` followed by a blank or the end: a YAML document boundary. */
  private isDocMarker(start: number): boolean {
    const c = this.src.charCodeAt(start);
    return this.code(start + 1) === c && this.code(start + 2) === c && isBreakOrBlank(this.code(start + 3));
  }

  private single(kind: TokenKind, start: number): Token {
    this.pos = start + 1;
    return this.make(kind, start, start + 1, this.src[start] ?? '');
  }

  /** Anchor, alias or tag: the indicator and the name up to a blank or flow indicator. */
  private word(kind: TokenKind, start: number): Token {
    let i = start + 1;
    while (i < this.src.length) {
      const c = this.src.charCodeAt(i);
      if (isBreakOrBlank(c) || isFlowIndicator(c)) break;
      i++;
    }
    this.pos = i;
    return this.make(kind, start, i, this.src.slice(start, i));
  }

  /**
   * End (exclusive, trailing blanks trimmed) of the plain-scalar text on the
   * line starting at `start`: stops at ` #`, at `: ` (or `:` before a flow
   * indicator in flow context), at flow indicators in flow context, and at
   * the line break.
   */
  private scanPlainLine(start: number): number {
    const src = this.src;
    const flow = this.flowDepth > 0;
    let last = start;
    let i = start;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === LF) break;
      if (c === COLON) {
        const n = this.code(i + 1);
        if (isBreakOrBlank(n) || (flow && isFlowIndicator(n))) break;
      } else if (c === HASH) {
        const p = this.code(i - 1);
        if (p === SPACE || p === TAB) break;
      } else if (flow && isFlowIndicator(c)) {
        break;
      }
      i++;
      if (c !== SPACE && c !== TAB) last = i;
    }
    return last;
  }

  /**
   * After the `:` test fails for a plain scalar just read, reads its
   * continuation lines: lines indented more than `parentIndent`. Single line breaks fold to a space,
   * blank lines to line feeds. Returns the whole folded text.
   */
  continuePlain(first: string, parentIndent: number): string {
    if (this.peeked !== null) return first;
    const src = this.src;
    const flow = this.flowDepth > 0;
    let value = first;
    let p = this.pos;
    while (p < src.length && (src.charCodeAt(p) === SPACE || src.charCodeAt(p) === TAB)) p++;
    if (p >= src.length || src.charCodeAt(p) !== LF) return value;
    let line = this.line;
    let breaks = 0;
    while (p < src.length) {
      // p is at a line break
      p++;
      line++;
      const lineOff = p;
      breaks++;
      let q = p;
      while (q < src.length && src.charCodeAt(q) === SPACE) q++;
      const indent = q - p;
      while (q < src.length && (src.charCodeAt(q) === SPACE || src.charCodeAt(q) === TAB)) q++;
      if (q >= src.length) break;
      const c = src.charCodeAt(q);
      if (c === LF) {
        p = q;
        continue;
      }
      if (indent <= parentIndent) break;
      if (c === HASH || (indent === 0 && this.isDocMarker(q))) break;
      const n = this.code(q + 1);
      if (c === COLON && (isBreakOrBlank(n) || (flow && isFlowIndicator(n)))) break;
      if (flow && isFlowIndicator(c)) break;
      const end = this.scanPlainLine(q);
      if (end === q) break;
      value += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
      value += src.slice(q, end);
      breaks = 0;
      this.pos = end;
      this.line = line;
      this.lineOff = lineOff;
      this.atLineStart = false;
      p = end;
      while (p < src.length && (src.charCodeAt(p) === SPACE || src.charCodeAt(p) === TAB)) p++;
      if (p >= src.length || src.charCodeAt(p) !== LF) break;
    }
    return value;
  }

  /** Whether a `:` value indicator follows on the current line (the token just read is a key). */
  atValueIndicator(): boolean {
    if (this.peeked !== null) return this.peeked.kind === 'colon' && !this.peeked.lineStart;
    let i = this.pos;
    while (i < this.src.length && (this.src.charCodeAt(i) === SPACE || this.src.charCodeAt(i) === TAB)) i++;
    return this.code(i) === COLON && isBreakOrBlank(this.code(i + 1));
  }

  /**
   * Recovery: the raw text from `token` to the end of its line (minus a
   * trailing comment), continued by lines indented more than `parentIndent`,
   * folded like a plain scalar. Repositions the lexer after it.
   */
  recoverLine(token: Token, parentIndent: number): string {
    const src = this.src;
    this.peeked = null;
    this.flowDepth = 0;
    this.line = token.line;
    this.lineOff = token.start - token.col;
    let value = src.slice(token.start, this.rawLineEnd(token.start));
    let p = token.start;
    let breaks = 0;
    let lineOff = this.lineOff;
    let line = this.line;
    this.pos = token.start + value.length;
    while (p < src.length && src.charCodeAt(p) !== LF) p++;
    while (p < src.length) {
      p++;
      line++;
      breaks++;
      lineOff = p;
      let q = p;
      while (q < src.length && src.charCodeAt(q) === SPACE) q++;
      const indent = q - p;
      while (q < src.length && (src.charCodeAt(q) === SPACE || src.charCodeAt(q) === TAB)) q++;
      if (q >= src.length) break;
      const c = src.charCodeAt(q);
      if (c === LF) {
        p = q;
        continue;
      }
      if (indent <= parentIndent || c === HASH) break;
      const end = this.rawLineEnd(q);
      value += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
      value += src.slice(q, end);
      breaks = 0;
      this.pos = end;
      this.line = line;
      this.lineOff = lineOff;
      p = end;
      while (p < src.length && src.charCodeAt(p) !== LF) p++;
    }
    this.atLineStart = false;
    this.prevKind = 'plain';
    return value;
  }

  /** End of the line from `start`, before a ` #` comment, trailing blanks trimmed. */
  private rawLineEnd(start: number): number {
    const src = this.src;
    let last = start;
    for (let i = start; i < src.length; i++) {
      const c = src.charCodeAt(i);
      if (c === LF) break;
      if (c === HASH && i > start && isBreakOrBlank(src.charCodeAt(i - 1))) break;
      if (c !== SPACE && c !== TAB) last = i + 1;
    }
    return last;
  }

  private blockHeader(start: number): Token {
    const src = this.src;
    let i = start + 1;
    let chomp = 0;
    let indent = 0;
    for (let k = 0; k < 2; k++) {
      const c = this.code(i);
      if ((c === PLUS || c === DASH) && chomp === 0) chomp = c === PLUS ? 1 : -1;
      else if (c >= 49 && c <= 57 && indent === 0) indent = c - 48;
      else break;
      i++;
    }
    const headerEnd = i;
    while (i < src.length && (src.charCodeAt(i) === SPACE || src.charCodeAt(i) === TAB)) i++;
    if (i < src.length && src.charCodeAt(i) === HASH && i > headerEnd) {
      while (i < src.length && src.charCodeAt(i) !== LF) i++;
    } else if (i < src.length && src.charCodeAt(i) !== LF) {
      return this.error('YAML_SYNTAX', i, 'invalid block scalar header');
    }
    const token = this.make('block', start, headerEnd, src.slice(start, headerEnd));
    token.chomp = chomp;
    token.indentIndicator = indent;
    this.pos = i;
    return token;
  }

  /**
   * Content of the block scalar whose header was just read. `parentIndent`
   * is the indentation of the mapping or sequence holding it: content must
   * be indented more, and an explicit indicator counts from it.
   */
  blockScalar(header: Token, parentIndent: number): BlockScalarResult {
    const src = this.src;
    const lines: string[] = [];
    let contentIndent = header.indentIndicator > 0 ? Math.max(parentIndent, 0) + header.indentIndicator : -1;
    let maxLeading = 0;
    let p = this.pos;
    let stop = src.length;
    if (p < src.length) {
      p++; // the header's line break
      let line = this.line + 1;
      let lineOff = p;
      while (p < src.length) {
        let q = p;
        while (q < src.length && src.charCodeAt(q) === SPACE) q++;
        const spaces = q - p;
        let eol = q;
        let blank = true;
        while (eol < src.length && src.charCodeAt(eol) !== LF) {
          const c = src.charCodeAt(eol);
          if (c !== SPACE && c !== TAB) blank = false;
          eol++;
        }
        if (contentIndent < 0) {
          // Indentation is detected from the first line holding more than spaces (a tab counts).
          if (q === eol) {
            if (spaces > maxLeading) maxLeading = spaces;
            lines.push('');
          } else if (spaces <= parentIndent) {
            stop = p;
            break;
          } else {
            contentIndent = spaces;
          }
        }
        if (contentIndent >= 0) {
          if (spaces >= contentIndent) lines.push(src.slice(p + contentIndent, eol));
          else if (blank) lines.push('');
          else {
            stop = p;
            break;
          }
        }
        if (eol >= src.length) {
          p = src.length;
          break;
        }
        p = eol + 1;
        line++;
        lineOff = p;
      }
      if (stop < src.length) {
        this.line = line;
        this.lineOff = lineOff;
        this.atLineStart = true;
      }
    }
    this.pos = Math.min(stop, src.length);
    const badIndent = contentIndent >= 0 && header.indentIndicator === 0 && maxLeading > contentIndent;
    return { value: chompBlock(lines, header.value.charCodeAt(0) === GT, header.chomp), badIndent };
  }

  private doubleQuoted(start: number): Token {
    const src = this.src;
    // Pieces joined once at the end: `+=` per piece builds a rope node per escape, and a long
    // line full of escapes then spends its time collecting them.
    const out: string[] = [];
    let seg = start + 1;
    let i = seg;
    let contIndent = Infinity;
    const startLine = this.line;
    const startCol = start - this.lineOff;
    for (;;) {
      if (i >= src.length) return this.unclosed(start, startLine, startCol, 'unclosed double quote');
      const c = src.charCodeAt(i);
      if (c === DQUOTE) {
        out.push(src.slice(seg, i));
        i++;
        break;
      }
      if (c === BACKSLASH) {
        out.push(src.slice(seg, i));
        const e = this.code(i + 1);
        if (e === LF) {
          i += 2;
          this.newline(i);
          const lineStart = i;
          while (i < src.length && src.charCodeAt(i) === SPACE) i++;
          const indent = i - lineStart;
          while (i < src.length && (src.charCodeAt(i) === SPACE || src.charCodeAt(i) === TAB)) i++;
          if (i < src.length && src.charCodeAt(i) !== LF && indent < contIndent) contIndent = indent;
          seg = i;
          continue;
        }
        const simple = simpleEscape(e);
        if (simple !== undefined) {
          out.push(simple);
          i += 2;
        } else {
          const width = e === 120 ? 2 : e === 117 ? 4 : e === 85 ? 8 : 0;
          let cp = width === 0 ? -1 : 0;
          for (let k = 0; k < width; k++) {
            const h = hexValue(this.code(i + 2 + k));
            if (h < 0) {
              cp = -1;
              break;
            }
            cp = cp * 16 + h;
          }
          if (cp < 0 || cp > 0x10ffff) {
            return this.error('YAML_BAD_ESCAPE', i, `invalid escape \\${src.slice(i + 1, i + 2 + width)}`);
          }
          out.push(String.fromCodePoint(cp));
          i += 2 + width;
        }
        seg = i;
        continue;
      }
      if (c === LF) {
        const folded = this.quotedLineBreak(i, seg);
        out.push(folded.text);
        if (folded.indent < contIndent) contIndent = folded.indent;
        i = seg = folded.next;
        continue;
      }
      i++;
    }
    return this.quotedToken('double', start, i, out.join(''), contIndent);
  }

  private singleQuoted(start: number): Token {
    const src = this.src;
    // Pieces joined once at the end, as in doubleQuoted.
    const out: string[] = [];
    let seg = start + 1;
    let i = seg;
    let contIndent = Infinity;
    const startLine = this.line;
    const startCol = start - this.lineOff;
    for (;;) {
      if (i >= src.length) return this.unclosed(start, startLine, startCol, 'unclosed single quote');
      const c = src.charCodeAt(i);
      if (c === SQUOTE) {
        if (this.code(i + 1) === SQUOTE) {
          out.push(src.slice(seg, i + 1));
          i += 2;
          seg = i;
          continue;
        }
        out.push(src.slice(seg, i));
        i++;
        break;
      }
      if (c === LF) {
        const folded = this.quotedLineBreak(i, seg);
        out.push(folded.text);
        if (folded.indent < contIndent) contIndent = folded.indent;
        i = seg = folded.next;
        continue;
      }
      i++;
    }
    return this.quotedToken('single', start, i, out.join(''), contIndent);
  }

  /** The token for a quoted scalar that ends at `end`, with the least indentation of its continuation lines. */
  private quotedToken(kind: 'double' | 'single', start: number, end: number, value: string, contIndent: number): Token {
    this.pos = end;
    const token = this.make(kind, start, end, value);
    token.contIndent = contIndent;
    return token;
  }

  /**
   * A line break inside a quoted scalar: the text of the line before it (from
   * `seg`, trailing blanks trimmed) plus what the break folds to, where the
   * scalar continues, and the least indentation of the continuation lines.
   */
  private quotedLineBreak(i: number, seg: number): { text: string; next: number; indent: number } {
    const src = this.src;
    let end = i;
    while (end > seg && (src.charCodeAt(end - 1) === SPACE || src.charCodeAt(end - 1) === TAB)) end--;
    let text = src.slice(seg, end);
    let indent = Infinity;
    const next = this.foldBreaks(
      i,
      (lineIndent) => {
        if (lineIndent < indent) indent = lineIndent;
      },
      (folded) => {
        text += folded;
      },
    );
    return { text, next, indent };
  }

  /**
   * Line folding inside quoted scalars, from the line break at `i`: skips
   * blank lines and the next line's leading blanks; one break becomes a
   * space, n blank lines n line feeds. Returns the offset after the blanks.
   */
  private foldBreaks(i: number, onIndent: (indent: number) => void, emit: (text: string) => void): number {
    const src = this.src;
    let blankLines = 0;
    for (;;) {
      i++;
      this.newline(i);
      const lineStart = i;
      while (i < src.length && src.charCodeAt(i) === SPACE) i++;
      const indent = i - lineStart;
      while (i < src.length && (src.charCodeAt(i) === SPACE || src.charCodeAt(i) === TAB)) i++;
      if (i < src.length && src.charCodeAt(i) === LF) {
        blankLines++;
        continue;
      }
      if (i < src.length) onIndent(indent);
      break;
    }
    emit(blankLines === 0 ? ' ' : '\n'.repeat(blankLines));
    return i;
  }

  private unclosed(start: number, line: number, col: number, message: string): Token {
    this.line = line;
    this.lineOff = start - col;
    return this.error('YAML_UNCLOSED_QUOTE', start, message);
  }
}

/** Joins block scalar lines (literal or folded) and applies chomping. */
function chompBlock(lines: string[], folded: boolean, chomp: number): string {
  let last = lines.length - 1;
  while (last >= 0 && lines[last] === '') last--;
  if (last < 0) return chomp > 0 ? '\n'.repeat(lines.length) : '';
  let body = '';
  if (!folded) {
    body = lines.slice(0, last + 1).join('\n');
  } else {
    let pendingEmpty = 0;
    let started = false;
    let prevNormal = false;
    for (let i = 0; i <= last; i++) {
      const s = lines[i] ?? '';
      if (s === '') {
        pendingEmpty++;
        continue;
      }
      const c = s.charCodeAt(0);
      const normal = c !== SPACE && c !== TAB;
      if (!started) body += '\n'.repeat(pendingEmpty);
      else if (prevNormal && normal) body += pendingEmpty === 0 ? ' ' : '\n'.repeat(pendingEmpty);
      else body += '\n'.repeat(pendingEmpty + 1);
      body += s;
      started = true;
      pendingEmpty = 0;
      prevNormal = normal;
    }
  }
  if (chomp < 0) return body;
  if (chomp === 0) return body + '\n';
  return body + '\n' + '\n'.repeat(lines.length - 1 - last);
}
