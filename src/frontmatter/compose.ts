/**
 * Composer: tokens -> JavaScript values, with positioned diagnostics.
 *
 * Recursive descent over the token stream, one function per YAML node kind.
 * The first error stops reading (the lexer is no longer consulted), so every
 * loop ends and the keys read before the error are kept. Nesting is counted
 * against `maxDepth`, so recursion stays shallow whatever the input.
 */
import type { Diagnostic, DiagnosticCode, Severity } from '../diagnostics.js';
import { Lexer } from './lexer.js';
import type { Token, TokenKind } from './lexer.js';
import { keyString, resolvePlain, setOwn } from './scalars.js';

export interface ComposeOptions {
  file: string;
  /** 1-based line in the original text of the frontmatter's first line. */
  firstLine: number;
  maxDepth: number;
}

export interface ComposedField {
  line: number;
  column: number;
  plain?: string;
}

export interface ComposeResult {
  /** The document's value; null for an empty document. */
  value: unknown;
  /** Top-level keys of a root mapping. */
  fields: Record<string, ComposedField>;
  diagnostics: Diagnostic[];
}

type Parent = 'root' | 'map' | 'seq';

const EOF_TOKEN: Token = {
  kind: 'eof',
  start: 0,
  end: 0,
  line: 0,
  col: 0,
  lineStart: true,
  value: '',
  contIndent: Infinity,
  chomp: 0,
  indentIndicator: 0,
  code: '',
};

const MAX_QUOTED_LINE = 80;

/** YAML the composer refuses (no published skill uses it), with what it says. */
const UNSUPPORTED: Record<Extract<TokenKind, 'anchor' | 'alias' | 'tag' | 'directive' | 'explicitKey' | 'docMarker'>, string> = {
  anchor: 'anchors are not supported',
  alias: 'aliases are not supported',
  tag: 'tags are not supported',
  directive: 'directives are not supported',
  explicitKey: 'explicit "? " keys are not supported',
  docMarker: 'a second YAML document inside the frontmatter is not supported',
};

class Composer {
  readonly diagnostics: Diagnostic[] = [];
  readonly fields: Record<string, ComposedField> = {};
  private readonly lexer: Lexer;
  private stopped = false;
  private depth = 0;
  /** Source text of the last plain scalar read by blockValue, for `fields`. */
  private lastPlain: string | undefined;
  /** Indentation of the block node holding the current flow collection: its lines must go deeper. */
  private flowIndent = -1;
  /**
   * Set when the flow collection being read stopped because the next key (a
   * line no deeper than its block) or the end of the frontmatter came first.
   */
  private flowCutOff: 'the next key' | 'the end of the frontmatter' | undefined;

  constructor(
    private readonly src: string,
    private readonly options: ComposeOptions,
  ) {
    this.lexer = new Lexer(src);
  }

  document(): unknown {
    if (this.peek().kind === 'eof') return null;
    const value = this.blockValue(-1, 'root');
    const rest = this.peek();
    if (rest.kind !== 'eof') {
      this.fail(rest.lineStart ? 'YAML_BAD_INDENT' : 'YAML_SYNTAX', rest, rest.lineStart ? 'unexpected indentation' : 'unexpected content');
    }
    return value;
  }

  // --- token access and diagnostics -------------------------------------

  private peek(): Token {
    if (this.stopped) return EOF_TOKEN;
    const token = this.lexer.peek();
    if (token.kind === 'error') {
      this.fail(token.code === '' ? 'YAML_SYNTAX' : token.code, token, token.value);
      return EOF_TOKEN;
    }
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (!this.stopped) this.lexer.next();
    return token;
  }

  /** The trimmed source line of `token`, quoted and cut to a readable length. */
  private quoteLine(token: Token): string {
    const lineOff = token.start - token.col;
    let end = this.src.indexOf('\n', lineOff);
    if (end < 0) end = this.src.length;
    let text = this.src.slice(lineOff, Math.min(end, lineOff + 400)).trim();
    if (text.length > MAX_QUOTED_LINE) text = `${text.slice(0, MAX_QUOTED_LINE - 3)}...`;
    return JSON.stringify(text);
  }

  private report(severity: Severity, code: DiagnosticCode, token: Token, what: string): void {
    this.diagnostics.push({
      code,
      severity,
      file: this.options.file,
      line: token.line + this.options.firstLine,
      column: token.col + 1,
      message: `${what}: ${this.quoteLine(token)}`,
    });
  }

  private fail(code: DiagnosticCode, token: Token, what: string): void {
    if (this.stopped) return;
    this.report('error', code, token, what);
    this.stopped = true;
  }

  private enter(token: Token): boolean {
    this.depth++;
    if (this.depth > this.options.maxDepth) {
      this.fail('YAML_TOO_DEEP', token, `nesting deeper than ${this.options.maxDepth} levels`);
      return false;
    }
    return true;
  }

  // --- block nodes -------------------------------------------------------

  /**
   * The node after `key:`, after `- `, or the document root. `indent` is the
   * indentation of the mapping or sequence holding it (-1 for the root).
   */
  private blockValue(indent: number, parent: Parent): unknown {
    this.lastPlain = undefined;
    const token = this.peek();
    if (token.kind === 'eof') return null;
    if (token.lineStart) {
      // A sequence may sit at its key's indentation: `key:\n- a`.
      if (token.col === indent && token.kind === 'seq' && parent === 'map') return this.blockSeq(token.col);
      if (token.col <= indent) return null;
      return this.node(token, indent, parent, false);
    }
    return this.node(token, indent, parent, true);
  }

  private node(token: Token, indent: number, parent: Parent, sameLine: boolean): unknown {
    const recoverable = sameLine && parent === 'map';
    switch (token.kind) {
      case 'seq':
        if (recoverable) return this.recover(token, indent, 'block sequence on the same line as its key');
        return this.blockSeq(token.col);
      case 'block': {
        this.next();
        const result = this.lexer.blockScalar(token, indent);
        if (result.badIndent) {
          this.fail('YAML_BAD_INDENT', token, 'block scalar with more-indented leading empty lines needs an indentation indicator');
        }
        return result.value;
      }
      case 'seqStart':
      case 'mapStart': {
        this.flowIndent = indent;
        const mark = { diagnostics: this.diagnostics.length, depth: this.depth };
        this.flowCutOff = undefined;
        const value = this.flowCollection();
        if (this.stopped) {
          // `description: [Extended thinking: ...` then the next key: an author's text, not a list.
          if (recoverable && this.flowCutOff) return this.resume(mark, token, indent, this.flowCutOff);
          return value;
        }
        if (this.lexer.atValueIndicator()) {
          this.fail('YAML_UNSUPPORTED', token, 'flow collection used as a mapping key');
          return value;
        }
        return this.endOfValue(token, indent, recoverable, value);
      }
      case 'plain':
      case 'single':
      case 'double': {
        if (this.keyFollows()) {
          if (recoverable) return this.recover(token, indent, 'mapping nested on the same line as its key');
          return this.blockMap(token);
        }
        const value = this.scalar(token, indent);
        if (this.stopped) return value;
        return this.endOfValue(token, indent, recoverable, value);
      }
      case 'colon':
        // `: value` -- a mapping entry with an empty (null) key.
        if (recoverable) return this.recover(token, indent, 'mapping nested on the same line as its key');
        return this.blockMap(token);
      case 'alias':
      case 'reserved':
        // An alias without anchor (anchors are refused) is text like `*bold*`.
        if (recoverable) return this.recover(token, indent, `value cannot start with ${JSON.stringify(token.value.charAt(0))}`);
        this.fail(token.kind === 'alias' ? 'YAML_UNSUPPORTED' : 'YAML_SYNTAX', token, `unexpected ${JSON.stringify(token.value.charAt(0))}`);
        return null;
      case 'anchor':
      case 'tag':
      case 'directive':
      case 'explicitKey':
      case 'docMarker':
        this.fail('YAML_UNSUPPORTED', token, UNSUPPORTED[token.kind]);
        return null;
      default:
        this.fail('YAML_SYNTAX', token, `unexpected ${JSON.stringify(token.value)}`);
        return null;
    }
  }

  /** After a scalar or flow value: only a comment or a line break may follow on its line. */
  private endOfValue(start: Token, indent: number, recoverable: boolean, value: unknown): unknown {
    const after = this.peek();
    if (after.kind === 'eof' || after.lineStart) return value;
    if (recoverable) return this.recover(start, indent, 'unexpected text after the value');
    this.fail('YAML_SYNTAX', after, 'unexpected text after the value');
    return value;
  }

  /**
   * Undo a failed flow collection (its error and nesting) and read it as text
   * instead, from its opening bracket: the lexer is repositioned there.
   */
  private resume(mark: { diagnostics: number; depth: number }, open: Token, indent: number, before: string): string {
    this.diagnostics.length = mark.diagnostics;
    this.depth = mark.depth;
    this.stopped = false;
    const kind = open.kind === 'seqStart' ? 'flow sequence "["' : 'flow mapping "{"';
    return this.recover(open, indent, `${kind} not closed before ${before}`);
  }

  /** A value `yaml` rejects but skill hosts read as text: the rest of the line. */
  private recover(start: Token, indent: number, what: string): string {
    const text = this.lexer.recoverLine(start, indent);
    this.report('warning', 'YAML_RECOVERED', start, `${what}; read as plain text`);
    this.lastPlain = text;
    return text;
  }

  private scalar(token: Token, indent: number): unknown {
    if (token.kind === 'plain') {
      const text = this.lexer.continuePlain(token.value, indent);
      this.lastPlain = text;
      return resolvePlain(text);
    }
    if (token.contIndent <= indent) {
      this.fail('YAML_BAD_INDENT', token, 'quoted scalar continued on a line that is not indented enough');
    }
    return token.value;
  }

  /** Reads the scalar just peeked and tells whether a `:` follows it on its line. */
  private keyFollows(): boolean {
    this.next();
    return this.lexer.atValueIndicator();
  }

  /** A block mapping whose first key `first` was peeked (and, unless it is an empty key's `:`, read). */
  private blockMap(first: Token): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    if (!this.enter(first)) return map;
    const indent = first.col;
    const isRoot = this.depth === 1;
    let key = first;
    for (;;) {
      this.next(); // the ':'
      if (key.contIndent !== Infinity) {
        this.fail('YAML_SYNTAX', key, 'a mapping key must be on a single line');
        break;
      }
      const name = key.kind === 'colon' ? '' : keyString(key.kind === 'plain' ? resolvePlain(key.value) : key.value);
      const value = this.blockValue(indent, 'map');
      if (this.stopped) break;
      if (Object.hasOwn(map, name)) {
        this.fail('YAML_DUPLICATE_KEY', key, `duplicate key ${JSON.stringify(name)}`);
        break;
      }
      setOwn(map, name, value);
      if (isRoot) {
        const field: ComposedField = { line: key.line + this.options.firstLine, column: key.col + 1 };
        if (this.lastPlain !== undefined && (value === null || typeof value !== 'object')) field.plain = this.lastPlain;
        setOwn(this.fields as Record<string, unknown>, name, field);
      }
      const next = this.nextEntryAt(indent);
      if (!next) break;
      if (next.kind !== 'plain' && next.kind !== 'single' && next.kind !== 'double' && next.kind !== 'colon') {
        if (next.kind === 'explicitKey' || next.kind === 'docMarker') this.fail('YAML_UNSUPPORTED', next, UNSUPPORTED[next.kind]);
        else this.fail('YAML_SYNTAX', next, 'expected a "key: value" entry');
        break;
      }
      if (next.kind !== 'colon' && !this.keyFollows()) {
        this.fail('YAML_SYNTAX', next, 'expected a "key: value" entry');
        break;
      }
      key = next;
    }
    this.depth--;
    return map;
  }

  /**
   * After an entry of a block collection at column `indent`: the first token of
   * the next line when another entry may start there; undefined at the end of
   * the collection, or after reporting text that cannot follow.
   */
  private nextEntryAt(indent: number): Token | undefined {
    const next = this.peek();
    if (next.kind === 'eof') return undefined;
    if (!next.lineStart) {
      this.fail('YAML_SYNTAX', next, 'unexpected text after the value');
      return undefined;
    }
    if (next.col < indent) return undefined;
    if (next.col > indent) {
      this.fail('YAML_BAD_INDENT', next, 'unexpected indentation');
      return undefined;
    }
    return next;
  }

  /** A block sequence whose first `- ` is the next token, at column `indent`. */
  private blockSeq(indent: number): unknown[] {
    const list: unknown[] = [];
    if (!this.enter(this.peek())) return list;
    for (;;) {
      this.next(); // the '-'
      const value = this.blockValue(indent, 'seq');
      if (this.stopped) break;
      list.push(value);
      const next = this.nextEntryAt(indent);
      if (!next) break;
      // Same column but no `- `: the mapping holding this sequence goes on.
      if (next.kind !== 'seq') break;
    }
    this.depth--;
    return list;
  }

  // --- flow collections --------------------------------------------------

  /** Next token inside a flow collection, refusing lines left of the block that holds it. */
  private flowPeek(): Token {
    const token = this.peek();
    if (token.kind === 'eof' || !token.lineStart) return token;
    const closing = token.kind === 'seqEnd' || token.kind === 'mapEnd';
    if (token.col > this.flowIndent || (closing && token.col === this.flowIndent)) return token;
    // The collection can be read as text only when that line starts the next `key:`.
    if (!this.stopped && (token.kind === 'plain' || token.kind === 'single' || token.kind === 'double') && this.keyFollows()) this.flowCutOff = 'the next key';
    this.fail('YAML_BAD_INDENT', token, 'flow collection continued on a line that is not indented enough');
    return EOF_TOKEN;
  }

  private flowCollection(): unknown {
    const open = this.next();
    const isMap = open.kind === 'mapStart';
    const result: Record<string, unknown> | unknown[] = isMap ? {} : [];
    if (!this.enter(open)) return result;
    const close = isMap ? 'mapEnd' : 'seqEnd';
    for (;;) {
      let token = this.flowPeek();
      if (token.kind === close) {
        this.next();
        break;
      }
      if (token.kind === 'eof') {
        this.unclosed(open, isMap);
        break;
      }
      if (token.kind === 'comma') {
        this.fail('YAML_SYNTAX', token, 'empty entry in a flow collection');
        break;
      }
      const keyToken = token;
      const first = this.flowNode();
      if (this.stopped) break;
      token = this.flowPeek();
      if (isMap || token.kind === 'colon') {
        // A `key: value` entry (in a sequence: a one-pair mapping).
        let value: unknown = null;
        if (token.kind === 'colon') {
          this.next();
          const after = this.flowPeek();
          if (after.kind !== 'comma' && after.kind !== close) value = this.flowNode();
          if (this.stopped) break;
        }
        if (first !== null && typeof first === 'object') {
          this.fail('YAML_UNSUPPORTED', keyToken, 'collection used as a mapping key');
          break;
        }
        const name = keyString(first);
        if (isMap) {
          const map = result as Record<string, unknown>;
          if (Object.hasOwn(map, name)) {
            this.fail('YAML_DUPLICATE_KEY', keyToken, `duplicate key ${JSON.stringify(name)}`);
            break;
          }
          setOwn(map, name, value);
        } else {
          const pair: Record<string, unknown> = {};
          setOwn(pair, name, value);
          (result as unknown[]).push(pair);
        }
      } else {
        (result as unknown[]).push(first);
      }
      token = this.flowPeek();
      if (token.kind === 'comma') {
        this.next();
        continue;
      }
      if (token.kind === close) {
        this.next();
        break;
      }
      if (token.kind === 'eof') {
        this.unclosed(open, isMap);
      } else {
        this.fail('YAML_SYNTAX', token, `expected "," or "${isMap ? '}' : ']'}" in a flow collection`);
      }
      break;
    }
    this.depth--;
    return result;
  }

  /** The end of the frontmatter came before the closing bracket. */
  private unclosed(open: Token, isMap: boolean): void {
    // Not after another error, which turned the rest of the input into EOF.
    if (!this.stopped) this.flowCutOff = 'the end of the frontmatter';
    this.fail('YAML_UNCLOSED_FLOW', open, isMap ? 'unclosed flow mapping "{"' : 'unclosed flow sequence "["');
  }

  private flowNode(): unknown {
    const token = this.flowPeek();
    switch (token.kind) {
      case 'seqStart':
      case 'mapStart':
        return this.flowCollection();
      case 'plain':
        this.next();
        return resolvePlain(this.lexer.continuePlain(token.value, this.flowIndent));
      case 'single':
      case 'double':
        this.next();
        if (token.contIndent <= this.flowIndent) {
          this.fail('YAML_BAD_INDENT', token, 'quoted scalar continued on a line that is not indented enough');
        }
        return token.value;
      case 'colon':
        // `{: v}` -- an empty key: null.
        return null;
      case 'eof':
        return null;
      case 'anchor':
      case 'alias':
      case 'tag':
        this.fail('YAML_UNSUPPORTED', token, UNSUPPORTED[token.kind]);
        return null;
      default:
        this.fail('YAML_SYNTAX', token, `unexpected ${JSON.stringify(token.value)} in a flow collection`);
        return null;
    }
  }
}

/** Reads the frontmatter text `src` (line endings already `\n`). */
export function compose(src: string, options: ComposeOptions): ComposeResult {
  const composer = new Composer(src, options);
  const value = composer.document();
  return { value, fields: composer.fields, diagnostics: composer.diagnostics };
}
