/**
 * Flow collections (`[a, b]`, `{k: v}`), nested and over several lines. Their
 * lines must be indented deeper than the block node holding them; a line that
 * is not ends the collection with an error, which the block composer may undo
 * to read the collection as text (see `flowCutOff`).
 */
import { EOF_TOKEN, type ComposeContext } from './compose-context.js';
import type { ValueToken } from './lexer.js';
import { keyString, resolvePlain, setOwn } from './scalars.js';
import { UNSUPPORTED } from './unsupported.js';

type Close = 'seqEnd' | 'mapEnd';

/** Next token inside a flow collection, refusing lines left of the block that holds it. */
function flowPeek(ctx: ComposeContext): ValueToken {
  const token = ctx.peek();
  if (token.kind === 'eof' || !token.lineStart) return token;
  const closing = token.kind === 'seqEnd' || token.kind === 'mapEnd';
  if (token.col > ctx.flowIndent || (closing && token.col === ctx.flowIndent)) return token;
  // The collection can be read as text only when that line starts the next `key:`.
  if (!ctx.stopped && (token.kind === 'plain' || token.kind === 'single' || token.kind === 'double') && ctx.keyFollows())
    ctx.flowCutOff = 'the next key';
  ctx.fail('YAML_BAD_INDENT', token.start, 'flow collection continued on a line that is not indented enough');
  return EOF_TOKEN;
}

/** The flow collection whose `[` or `{` is the next token. */
export function flowCollection(ctx: ComposeContext): unknown {
  const open = ctx.next();
  const isMap = open.kind === 'mapStart';
  const result: Record<string, unknown> | unknown[] = isMap ? {} : [];
  if (!ctx.enter(open.start)) return result;
  const close: Close = isMap ? 'mapEnd' : 'seqEnd';
  for (;;) {
    const token = flowPeek(ctx);
    if (token.kind === close) {
      ctx.next();
      break;
    }
    if (token.kind === 'eof') {
      unclosed(ctx, open);
      break;
    }
    if (token.kind === 'comma') {
      ctx.fail('YAML_SYNTAX', token.start, 'empty entry in a flow collection');
      break;
    }
    if (!flowEntry(ctx, token, result, close) || !afterEntry(ctx, open, close)) break;
  }
  ctx.depth--;
  return result;
}

/** One entry, whose first token is `keyToken`, added to `result`; false when reading stopped. */
function flowEntry(ctx: ComposeContext, keyToken: ValueToken, result: Record<string, unknown> | unknown[], close: Close): boolean {
  const first = flowNode(ctx);
  if (ctx.stopped) return false;
  const token = flowPeek(ctx);
  if (Array.isArray(result) && token.kind !== 'colon') {
    result.push(first);
    return true;
  }
  // A `key: value` entry (in a sequence: a one-pair mapping).
  let value: unknown = null;
  if (token.kind === 'colon') {
    ctx.next();
    const after = flowPeek(ctx);
    if (after.kind !== 'comma' && after.kind !== close) value = flowNode(ctx);
    if (ctx.stopped) return false;
  }
  if (first !== null && typeof first === 'object') {
    ctx.fail('YAML_UNSUPPORTED', keyToken.start, 'collection used as a mapping key');
    return false;
  }
  const name = keyString(first);
  if (Array.isArray(result)) {
    const pair: Record<string, unknown> = {};
    setOwn(pair, name, value);
    result.push(pair);
  } else if (Object.hasOwn(result, name)) {
    ctx.fail('YAML_DUPLICATE_KEY', keyToken.start, `duplicate key ${JSON.stringify(name)}`);
    return false;
  } else {
    setOwn(result, name, value);
  }
  return true;
}

/** After an entry: `,` goes on (true); the closing bracket, the end or anything else ends the collection. */
function afterEntry(ctx: ComposeContext, open: ValueToken, close: Close): boolean {
  const token = flowPeek(ctx);
  if (token.kind === 'comma') {
    ctx.next();
    return true;
  }
  if (token.kind === close) ctx.next();
  else if (token.kind === 'eof') unclosed(ctx, open);
  else ctx.fail('YAML_SYNTAX', token.start, `expected "," or "${close === 'mapEnd' ? '}' : ']'}" in a flow collection`);
  return false;
}

/** The end of the frontmatter came before the closing bracket. */
function unclosed(ctx: ComposeContext, open: ValueToken): void {
  // Not after another error, which turned the rest of the input into EOF.
  if (!ctx.stopped) ctx.flowCutOff = 'the end of the frontmatter';
  ctx.fail('YAML_UNCLOSED_FLOW', open.start, open.kind === 'mapStart' ? 'unclosed flow mapping "{"' : 'unclosed flow sequence "["');
}

function flowNode(ctx: ComposeContext): unknown {
  const token = flowPeek(ctx);
  switch (token.kind) {
    case 'seqStart':
    case 'mapStart':
      return flowCollection(ctx);
    case 'plain':
      ctx.next();
      return resolvePlain(ctx.readPlain(token, ctx.flowIndent));
    case 'single':
    case 'double':
      ctx.next();
      if (token.contIndent <= ctx.flowIndent)
        ctx.fail('YAML_BAD_INDENT', token.start, 'quoted scalar continued on a line that is not indented enough');
      return token.value;
    case 'colon':
      // `{: v}` -- an empty key: null.
      return null;
    case 'eof':
      return null;
    case 'anchor':
    case 'alias':
    case 'tag':
    case 'explicitKey':
      ctx.fail('YAML_UNSUPPORTED', token.start, UNSUPPORTED[token.kind]);
      return null;
    default:
      ctx.fail('YAML_SYNTAX', token.start, `unexpected ${JSON.stringify(token.value)} in a flow collection`);
      return null;
  }
}
