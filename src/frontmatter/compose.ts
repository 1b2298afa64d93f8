/**
 * Composer: tokens -> JavaScript values, problems into the parse pass's
 * diagnostic sink. compose-block.ts reads block nodes, compose-flow.ts flow
 * collections; compose-context.ts holds what they share.
 */
import { composeDocument } from './compose-block.js';
import { ComposeContext, type ComposedField, type ComposeOptions } from './compose-context.js';

export type { ComposedField, ComposeOptions } from './compose-context.js';

export interface ComposeResult {
  /** The document's value; null for an empty document. */
  value: unknown;
  /** Top-level keys of a root mapping. */
  fields: Record<string, ComposedField>;
}

/** Reads the frontmatter text `src` (line endings already `\n`). */
export function compose(src: string, options: ComposeOptions): ComposeResult {
  // A byte order mark opening the YAML stream is not content, and counts for no column.
  const text = src.charCodeAt(0) === 0xfeff ? src.slice(1) : src;
  const ctx = new ComposeContext(text, options);
  const value = composeDocument(ctx);
  ctx.finish();
  return { value, fields: ctx.fields };
}
