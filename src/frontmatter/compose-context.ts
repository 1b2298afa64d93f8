/**
 * What the composer's functions share, passed as their first argument: the
 * token stream, the one diagnostic sink, nesting depth, and the state a flow
 * collection needs. The first error stops reading (`peek` returns EOF from
 * then on), so every loop ends and the keys read before the error are kept;
 * it is reported when composing ends, unless the collection that failed is
 * read as text instead (`retract`).
 */
import type { DiagnosticCode, DiagnosticSink } from '../base/diagnostics.js';
import { Lexer, type SimpleToken, type ValueToken } from './lexer.js';
import { LineIndex } from './line-index.js';
import { continuePlain } from './plain.js';
import { setOwn } from './scalars.js';

export interface ComposeOptions {
  file: string;
  /** 1-based line in the original text of the frontmatter's first line. */
  firstLine: number;
  maxDepth: number;
  /** Where the parse pass reports its problems. */
  sink: DiagnosticSink;
}

export interface ComposedField {
  line: number;
  column: number;
  plain?: string;
}

export const EOF_TOKEN: SimpleToken = { kind: 'eof', start: 0, end: 0, col: 0, lineStart: true, value: '' };

const MAX_QUOTED_LINE = 80;

export class ComposeContext {
  /** Top-level keys of a root mapping. */
  readonly fields: Record<string, ComposedField> = {};
  readonly lexer: Lexer;
  private readonly lines: LineIndex;
  stopped = false;
  depth = 0;
  /** Source text of the last plain scalar read by blockValue, for `fields`. */
  lastPlain: string | undefined;
  /** Indentation of the block node holding the current flow collection: its lines must go deeper. */
  flowIndent = -1;
  /**
   * Set when the flow collection being read stopped because the next key (a
   * line no deeper than its block) or the end of the frontmatter came first.
   */
  flowCutOff: 'the next key' | 'the end of the frontmatter' | undefined;
  /** The error that stopped reading, reported by `finish`. */
  private failure: { code: DiagnosticCode; at: number; what: string } | undefined;

  constructor(
    readonly src: string,
    private readonly options: ComposeOptions,
  ) {
    this.lexer = new Lexer(src);
    this.lines = new LineIndex(src, options.firstLine);
  }

  // --- tokens ---------------------------------------------------------------

  peek(): ValueToken {
    if (this.stopped) return EOF_TOKEN;
    const token = this.lexer.peek();
    if (token.kind === 'error') {
      this.fail(token.code, token.start, token.message);
      return EOF_TOKEN;
    }
    return token;
  }

  next(): ValueToken {
    const token = this.peek();
    if (!this.stopped) this.lexer.next();
    return token;
  }

  /** Reads the scalar just peeked and tells whether a `:` follows it on its line. */
  keyFollows(): boolean {
    this.next();
    return this.lexer.atValueIndicator();
  }

  /** The text of the plain scalar `token` (just read), continued on lines indented more than `parentIndent`. */
  readPlain(token: Pick<SimpleToken, 'end' | 'value'>, parentIndent: number): string {
    const folded = continuePlain(this.src, token.value, token.end, parentIndent, this.lexer.inFlow);
    if (folded === undefined) return token.value;
    this.lexer.moveTo(folded.end, folded.lineStart);
    return folded.value;
  }

  // --- problems and positions ---------------------------------------------------

  /** Stops reading with an error at offset `at`. */
  fail(code: DiagnosticCode, at: number, what: string): void {
    if (this.stopped) return;
    this.failure = { code, at, what };
    this.stopped = true;
  }

  /** Reports a problem that does not stop reading. */
  warn(code: DiagnosticCode, at: number, what: string): void {
    this.options.sink.report(code, this.place(at), `${what}: ${this.quoteLine(at)}`);
  }

  /** Undoes the error that stopped reading, and the nesting entered since `depth`. */
  retract(depth: number): void {
    this.failure = undefined;
    this.stopped = false;
    this.depth = depth;
  }

  /** Reports the error that stopped reading, if any. */
  finish(): void {
    const failure = this.failure;
    if (failure) this.options.sink.report(failure.code, this.place(failure.at), `${failure.what}: ${this.quoteLine(failure.at)}`);
  }

  private place(at: number): { file: string; line: number; column: number } {
    return { file: this.options.file, ...this.lines.position(at) };
  }

  /** The trimmed source line holding offset `at`, quoted and cut to a readable length. */
  private quoteLine(at: number): string {
    const lineOff = this.lines.lineStart(at);
    let end = this.src.indexOf('\n', lineOff);
    if (end < 0) end = this.src.length;
    let text = this.src.slice(lineOff, Math.min(end, lineOff + 400)).trim();
    if (text.length > MAX_QUOTED_LINE) text = `${text.slice(0, MAX_QUOTED_LINE - 3)}...`;
    return JSON.stringify(text);
  }

  /** Records a top-level key at offset `at`, with the plain source text of a scalar value. */
  addField(name: string, at: number, value: unknown): void {
    const field: ComposedField = this.lines.position(at);
    if (this.lastPlain !== undefined && (value === null || typeof value !== 'object')) field.plain = this.lastPlain;
    setOwn(this.fields, name, field);
  }

  // --- nesting -----------------------------------------------------------------

  /** Goes one level deeper for the collection at `at`; false (after an error) past maxDepth. */
  enter(at: number): boolean {
    this.depth++;
    if (this.depth > this.options.maxDepth) {
      this.fail('YAML_TOO_DEEP', at, `nesting deeper than ${this.options.maxDepth} levels`);
      return false;
    }
    return true;
  }
}
