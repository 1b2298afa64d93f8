/**
 * Block nodes: the document root, block mappings and sequences, block and
 * plain scalars in block context, and the recoveries skill hosts expect
 * (text `yaml` rejects, read as the rest of the line). Recursive descent,
 * one function per node kind; nesting is counted against maxDepth, so
 * recursion stays shallow whatever the input.
 */
import { scanBlockScalar } from './block-scalar.js';
import type { ComposeContext } from './compose-context.js';
import { flowCollection } from './compose-flow.js';
import type { BlockToken, QuotedToken, SimpleToken, ValueToken } from './lexer.js';
import { recoverLine } from './plain.js';
import { keyString, resolvePlain, setOwn } from './scalars.js';
import { UNSUPPORTED } from './unsupported.js';

type Parent = 'root' | 'map' | 'seq';

/** The document: a block node at the root, and nothing after it. */
export function composeDocument(ctx: ComposeContext): unknown {
  if (ctx.peek().kind === 'eof') return null;
  const value = blockValue(ctx, -1, 'root');
  const rest = ctx.peek();
  if (rest.kind !== 'eof') {
    ctx.fail(
      rest.lineStart ? 'YAML_BAD_INDENT' : 'YAML_SYNTAX',
      rest.start,
      rest.lineStart ? 'unexpected indentation' : 'unexpected content',
    );
  }
  return value;
}

/**
 * The node after `key:`, after `- `, or the document root. `indent` is the
 * indentation of the mapping or sequence holding it (-1 for the root).
 */
function blockValue(ctx: ComposeContext, indent: number, parent: Parent): unknown {
  ctx.lastPlain = undefined;
  const token = ctx.peek();
  if (token.kind === 'eof') return null;
  if (token.lineStart) {
    // A sequence may sit at its key's indentation: `key:\n- a`.
    if (token.col === indent && token.kind === 'seq' && parent === 'map') return blockSeq(ctx, token.col);
    if (token.col <= indent) return null;
    return node(ctx, token, indent, parent, false);
  }
  return node(ctx, token, indent, parent, true);
}

function node(ctx: ComposeContext, token: ValueToken, indent: number, parent: Parent, sameLine: boolean): unknown {
  // Only a value on its key's line can be read as text instead.
  const recoverable = sameLine && parent === 'map';
  switch (token.kind) {
    case 'seq':
      if (recoverable) return recover(ctx, token, indent, 'block sequence on the same line as its key');
      return blockSeq(ctx, token.col);
    case 'block':
      return blockScalar(ctx, token, indent);
    case 'seqStart':
    case 'mapStart':
      return flowInBlock(ctx, token, indent, recoverable);
    case 'plain':
    case 'single':
    case 'double':
      return scalarOrMap(ctx, token, indent, recoverable);
    case 'colon':
      // `: value` -- a mapping entry with an empty (null) key.
      if (recoverable) return recover(ctx, token, indent, 'mapping nested on the same line as its key');
      return blockMap(ctx, token);
    case 'alias':
    case 'reserved':
      // An alias without anchor (anchors are refused) is text like `*bold*`.
      if (recoverable) return recover(ctx, token, indent, `value cannot start with ${JSON.stringify(token.value.charAt(0))}`);
      ctx.fail(
        token.kind === 'alias' ? 'YAML_UNSUPPORTED' : 'YAML_SYNTAX',
        token.start,
        `unexpected ${JSON.stringify(token.value.charAt(0))}`,
      );
      return null;
    case 'anchor':
    case 'tag':
    case 'directive':
    case 'explicitKey':
    case 'docMarker':
      ctx.fail('YAML_UNSUPPORTED', token.start, UNSUPPORTED[token.kind]);
      return null;
    default:
      ctx.fail('YAML_SYNTAX', token.start, `unexpected ${JSON.stringify(token.value)}`);
      return null;
  }
}

function blockScalar(ctx: ComposeContext, token: BlockToken, indent: number): string {
  ctx.next();
  const result = scanBlockScalar(ctx.src, token.lineEnd, token.header, indent);
  ctx.lexer.moveTo(result.end, result.end);
  if (result.badIndent)
    ctx.fail('YAML_BAD_INDENT', token.start, 'block scalar with more-indented leading empty lines needs an indentation indicator');
  return result.value;
}

/** A flow collection as a block node's value; read as text when it runs into the next key unclosed. */
function flowInBlock(ctx: ComposeContext, token: SimpleToken, indent: number, recoverable: boolean): unknown {
  ctx.flowIndent = indent;
  const depth = ctx.depth;
  ctx.flowCutOff = undefined;
  const value = flowCollection(ctx);
  if (ctx.stopped) {
    // `description: [Extended thinking: ...` then the next key: an author's text, not a list.
    if (recoverable && ctx.flowCutOff) {
      const cutOff = ctx.flowCutOff;
      ctx.retract(depth);
      const kind = token.kind === 'seqStart' ? 'flow sequence "["' : 'flow mapping "{"';
      return recover(ctx, token, indent, `${kind} not closed before ${cutOff}`);
    }
    return value;
  }
  if (ctx.lexer.atValueIndicator()) {
    ctx.fail('YAML_UNSUPPORTED', token.start, 'flow collection used as a mapping key');
    return value;
  }
  return endOfValue(ctx, token, indent, recoverable, value);
}

/** A scalar, or the first key of a block mapping when a `:` follows it. */
function scalarOrMap(ctx: ComposeContext, token: SimpleToken | QuotedToken, indent: number, recoverable: boolean): unknown {
  if (ctx.keyFollows()) {
    if (recoverable) return recover(ctx, token, indent, 'mapping nested on the same line as its key');
    return blockMap(ctx, token);
  }
  const value = scalar(ctx, token, indent);
  if (ctx.stopped) return value;
  return endOfValue(ctx, token, indent, recoverable, value);
}

/** After a scalar or flow value: only a comment or a line break may follow on its line. */
function endOfValue(ctx: ComposeContext, start: ValueToken, indent: number, recoverable: boolean, value: unknown): unknown {
  const after = ctx.peek();
  if (after.kind === 'eof' || after.lineStart) return value;
  if (recoverable) return recover(ctx, start, indent, 'unexpected text after the value');
  ctx.fail('YAML_SYNTAX', after.start, 'unexpected text after the value');
  return value;
}

/** A value `yaml` rejects but skill hosts read as text: the rest of the line, from `start`. */
function recover(ctx: ComposeContext, start: ValueToken, indent: number, what: string): string {
  const folded = recoverLine(ctx.src, start.start, start.start - start.col, indent);
  ctx.lexer.moveTo(folded.end, folded.lineStart, true);
  ctx.warn('YAML_RECOVERED', start.start, `${what}; read as plain text`);
  ctx.lastPlain = folded.value;
  return folded.value;
}

function scalar(ctx: ComposeContext, token: SimpleToken | QuotedToken, indent: number): unknown {
  if (token.kind === 'single' || token.kind === 'double') {
    if (token.contIndent <= indent)
      ctx.fail('YAML_BAD_INDENT', token.start, 'quoted scalar continued on a line that is not indented enough');
    return token.value;
  }
  const text = ctx.readPlain(token, indent);
  ctx.lastPlain = text;
  return resolvePlain(text);
}

/** A block mapping whose first key `first` was peeked (and, unless it is an empty key's `:`, read). */
function blockMap(ctx: ComposeContext, first: SimpleToken | QuotedToken): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  if (!ctx.enter(first.start)) return map;
  const indent = first.col;
  const isRoot = ctx.depth === 1;
  for (let key: SimpleToken | QuotedToken | undefined = first; key; key = nextKey(ctx, indent)) {
    ctx.next(); // the ':'
    if (key.kind === 'single' || key.kind === 'double' ? key.contIndent !== Infinity : false) {
      ctx.fail('YAML_SYNTAX', key.start, 'a mapping key must be on a single line');
      break;
    }
    const name = key.kind === 'colon' ? '' : keyString(key.kind === 'plain' ? resolvePlain(key.value) : key.value);
    const value = blockValue(ctx, indent, 'map');
    if (ctx.stopped) break;
    if (Object.hasOwn(map, name)) {
      ctx.fail('YAML_DUPLICATE_KEY', key.start, `duplicate key ${JSON.stringify(name)}`);
      break;
    }
    setOwn(map, name, value);
    if (isRoot) ctx.addField(name, key.start, value);
  }
  ctx.depth--;
  return map;
}

/** The next key of the block mapping at column `indent` (read, with its `:` next), or undefined at its end or after an error. */
function nextKey(ctx: ComposeContext, indent: number): SimpleToken | QuotedToken | undefined {
  const next = nextEntryAt(ctx, indent);
  if (!next) return undefined;
  if (next.kind !== 'plain' && next.kind !== 'single' && next.kind !== 'double' && next.kind !== 'colon') {
    if (next.kind === 'explicitKey' || next.kind === 'docMarker') ctx.fail('YAML_UNSUPPORTED', next.start, UNSUPPORTED[next.kind]);
    else ctx.fail('YAML_SYNTAX', next.start, 'expected a "key: value" entry');
    return undefined;
  }
  if (next.kind !== 'colon' && !ctx.keyFollows()) {
    ctx.fail('YAML_SYNTAX', next.start, 'expected a "key: value" entry');
    return undefined;
  }
  return next;
}

/**
 * After an entry of a block collection at column `indent`: the first token of
 * the next line when another entry may start there; undefined at the end of
 * the collection, or after reporting text that cannot follow.
 */
function nextEntryAt(ctx: ComposeContext, indent: number): ValueToken | undefined {
  const next = ctx.peek();
  if (next.kind === 'eof') return undefined;
  if (!next.lineStart) {
    ctx.fail('YAML_SYNTAX', next.start, 'unexpected text after the value');
    return undefined;
  }
  if (next.col < indent) return undefined;
  if (next.col > indent) {
    ctx.fail('YAML_BAD_INDENT', next.start, 'unexpected indentation');
    return undefined;
  }
  return next;
}

/** A block sequence whose first `- ` is the next token, at column `indent`. */
function blockSeq(ctx: ComposeContext, indent: number): unknown[] {
  const list: unknown[] = [];
  if (!ctx.enter(ctx.peek().start)) return list;
  for (;;) {
    ctx.next(); // the '-'
    const value = blockValue(ctx, indent, 'seq');
    if (ctx.stopped) break;
    list.push(value);
    const next = nextEntryAt(ctx, indent);
    // Same column but no `- `: the mapping holding this sequence goes on.
    if (!next || next.kind !== 'seq') break;
  }
  ctx.depth--;
  return list;
}
