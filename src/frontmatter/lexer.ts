/**
 * YAML-subset lexer: frontmatter text (`\n` line endings) -> tokens with
 * offsets, pulled one at a time by the composer. Plain, quoted and block
 * scalars are scanned in their own modules.
 *
 * Tokens carry offsets, and the column they start at (YAML's indentation is
 * structure, so the lexer tracks where each line starts); line numbers are
 * not tracked here: a LineIndex works them out from an offset when a
 * diagnostic needs one.
 *
 * Two constructs depend on the indentation of the node that holds them (a
 * plain scalar continued on the next lines, a block scalar's content), which
 * only the composer knows: it reads those with the scanners in plain.ts and
 * block-scalar.ts, then tells the lexer where to go on (`moveTo`).
 * Everything else is context free apart from flow depth, which the lexer
 * tracks itself. Every scan moves forward; no regular expressions, so time
 * stays linear in the input.
 */
import type { DiagnosticCode } from '../base/diagnostics.js';
import { scanBlockHeader, type BlockHeader } from './block-scalar.js';
import {
  AMP,
  AT,
  BACKQUOTE,
  BANG,
  codeAt,
  COLON,
  COMMA,
  DASH,
  DOT,
  DQUOTE,
  GT,
  HASH,
  isBreakOrBlank,
  isDocMarker,
  isFlowIndicator,
  LBRACE,
  LBRACKET,
  LF,
  PERCENT,
  PIPE,
  QUESTION,
  RBRACE,
  RBRACKET,
  SPACE,
  SQUOTE,
  STAR,
  TAB,
} from './chars.js';
import { scanPlainLine } from './plain.js';
import { scanDoubleQuoted, scanSingleQuoted, type QuotedScan } from './quoted.js';

/** Tokens that are their source text and nothing more. */
export type SimpleKind =
  | 'eof'
  | 'seq' // `- ` block sequence entry
  | 'colon' // `: ` mapping value indicator
  | 'plain'
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
  | 'reserved'; // a character no plain scalar may start with (`@`, a backquote, ...)

interface Located {
  /** Offset of the token's first character. */
  start: number;
  /** Offset just past it. */
  end: number;
  /** 0-based column of `start`. */
  col: number;
  /** First token on its line. */
  lineStart: boolean;
}

export interface SimpleToken extends Located {
  kind: SimpleKind;
  /** The source text (plain scalars: trimmed, one line). */
  value: string;
}

export interface QuotedToken extends Located {
  kind: 'single' | 'double';
  /** The decoded text. */
  value: string;
  /** Least indentation of the continuation lines (Infinity on one line). */
  contIndent: number;
}

export interface BlockToken extends Located {
  kind: 'block';
  /** The header's source text (`|-2`). */
  value: string;
  header: BlockHeader;
  /** Offset of the header line's break (or the end of the text): the content starts after it. */
  lineEnd: number;
}

/** Lexing stops at an error: the composer reports it at `start`. */
export interface ErrorToken {
  kind: 'error';
  start: number;
  code: DiagnosticCode;
  message: string;
}

export type ValueToken = SimpleToken | QuotedToken | BlockToken;
export type Token = ValueToken | ErrorToken;
export type TokenKind = Token['kind'];

export class Lexer {
  private pos = 0;
  /** Offset of the line `pos` is on. */
  private lineOff = 0;
  private atLineStart = true;
  private flowDepth = 0;
  private prevKind: TokenKind = 'eof';
  private peeked: Token | null = null;

  /** `src`: frontmatter text with `\n` line endings and no byte order mark (compose() drops one). */
  constructor(private readonly src: string) {}

  peek(): Token {
    if (this.peeked === null) this.peeked = this.lex();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = null;
    return token;
  }

  /** Inside a flow collection (`[`, `{`)? */
  get inFlow(): boolean {
    return this.flowDepth > 0;
  }

  /**
   * Go on from `offset`, on the line starting at `lineStart`, after the
   * composer read a context-dependent scalar (or recovered text) up to there.
   * `leaveFlow`: the text read was a failed flow collection, now plain text.
   */
  moveTo(offset: number, lineStart: number, leaveFlow = false): void {
    this.peeked = null;
    this.pos = offset;
    this.lineOff = lineStart;
    this.atLineStart = offset === lineStart;
    if (leaveFlow) {
      this.flowDepth = 0;
      this.prevKind = 'plain';
    }
  }

  /** Whether a `:` value indicator follows on the current line (the token just read is a key). */
  atValueIndicator(): boolean {
    if (this.peeked !== null) return this.peeked.kind === 'colon' && !this.peeked.lineStart;
    let i = this.pos;
    while (i < this.src.length && (this.src.charCodeAt(i) === SPACE || this.src.charCodeAt(i) === TAB)) i++;
    return codeAt(this.src, i) === COLON && isBreakOrBlank(codeAt(this.src, i + 1));
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
        this.lineOff = i;
        this.atLineStart = true;
      } else if (c === HASH && (i === this.lineOff || isBreakOrBlank(codeAt(src, i - 1)))) {
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
    const token = start >= this.src.length ? this.simple('eof', start, start) : this.lexAt(start);
    this.atLineStart = false;
    this.prevKind = token.kind;
    return token;
  }

  private lexAt(start: number): Token {
    const c = this.src.charCodeAt(start);
    const flow = this.flowDepth > 0;
    if (this.atLineStart && !flow) {
      for (let i = this.lineOff; i < start; i++) {
        if (this.src.charCodeAt(i) === TAB) return this.error('YAML_TAB_INDENT', i, 'tab used for indentation');
      }
    }
    if ((c === DASH || c === DOT) && start === this.lineOff && isDocMarker(this.src, start))
      return this.simple('docMarker', start, start + 3);
    switch (c) {
      case DASH:
      case QUESTION:
      case COLON:
        return this.indicator(c, start, flow);
      case LBRACKET:
      case LBRACE:
        this.flowDepth++;
        return this.simple(c === LBRACKET ? 'seqStart' : 'mapStart', start, start + 1);
      case RBRACKET:
      case RBRACE:
        if (!flow) return this.simple('reserved', start, start + 1);
        this.flowDepth--;
        return this.simple(c === RBRACKET ? 'seqEnd' : 'mapEnd', start, start + 1);
      case COMMA:
        return this.simple(flow ? 'comma' : 'reserved', start, start + 1);
      case DQUOTE:
      case SQUOTE:
        return this.quoted(c === DQUOTE ? 'double' : 'single', start);
      case PIPE:
      case GT:
        return flow ? this.simple('reserved', start, start + 1) : this.blockHeader(start);
      case AMP:
      case STAR:
      case BANG:
        return this.word(c === AMP ? 'anchor' : c === STAR ? 'alias' : 'tag', start);
      case PERCENT:
        return this.simple(start === this.lineOff ? 'directive' : 'reserved', start, start + 1);
      case AT:
      case BACKQUOTE:
      case HASH:
        return this.simple('reserved', start, start + 1);
      default:
        return this.simple('plain', start, scanPlainLine(this.src, start, flow));
    }
  }

  /** `- `, `? ` or `: ` (in flow context `:` also before a flow indicator or after a quoted or flow value); else a plain scalar. */
  private indicator(c: number, start: number, flow: boolean): Token {
    const after = codeAt(this.src, start + 1);
    if (isBreakOrBlank(after)) return this.simple(c === DASH ? 'seq' : c === QUESTION ? 'explicitKey' : 'colon', start, start + 1);
    const prev = this.prevKind;
    if (
      c === COLON &&
      flow &&
      (isFlowIndicator(after) || prev === 'single' || prev === 'double' || prev === 'seqEnd' || prev === 'mapEnd')
    ) {
      return this.simple('colon', start, start + 1);
    }
    return this.simple('plain', start, scanPlainLine(this.src, start, flow));
  }

  /** A token that is its source text from `start` to `end`; the lexer goes on at `end`. */
  private simple(kind: SimpleKind, start: number, end: number): SimpleToken {
    this.pos = end;
    return { kind, start, end, col: start - this.lineOff, lineStart: this.atLineStart, value: this.src.slice(start, end) };
  }

  private error(code: DiagnosticCode, start: number, message: string): ErrorToken {
    this.pos = this.src.length;
    return { kind: 'error', start, code, message };
  }

  /** Anchor, alias or tag: the indicator and the name up to a blank or flow indicator. */
  private word(kind: 'anchor' | 'alias' | 'tag', start: number): Token {
    let i = start + 1;
    while (i < this.src.length) {
      const c = this.src.charCodeAt(i);
      if (isBreakOrBlank(c) || isFlowIndicator(c)) break;
      i++;
    }
    return this.simple(kind, start, i);
  }

  private quoted(kind: 'double' | 'single', start: number): Token {
    const scan: QuotedScan = kind === 'double' ? scanDoubleQuoted(this.src, start) : scanSingleQuoted(this.src, start);
    if (!scan.ok) return this.error(scan.code, scan.at, scan.message);
    const token: QuotedToken = {
      kind,
      start,
      end: scan.end,
      col: start - this.lineOff,
      lineStart: this.atLineStart,
      value: scan.value,
      contIndent: scan.contIndent,
    };
    this.pos = scan.end;
    if (scan.lineStart >= 0) this.lineOff = scan.lineStart;
    return token;
  }

  private blockHeader(start: number): Token {
    const scan = scanBlockHeader(this.src, start);
    if (!scan.ok) return this.error('YAML_SYNTAX', scan.at, 'invalid block scalar header');
    this.pos = scan.lineEnd;
    const value = this.src.slice(start, scan.end);
    return {
      kind: 'block',
      start,
      end: scan.end,
      col: start - this.lineOff,
      lineStart: this.atLineStart,
      value,
      header: scan.header,
      lineEnd: scan.lineEnd,
    };
  }
}
