/**
 * SISU's `requires` (the tools a skill expects the agent to have) as data, and
 * which of them an agent lacks. Pure; a leaf.
 *
 * The names are the ones the model calls (`bash`, `read_file`), so a tool is
 * present under the name the model sees it by: its own, or the alias SISU's
 * `registerTools(tools, { aliases })` gave it (`ctx.state.toolAliases`, a Map of
 * registered name to the name the model sees).
 */
import type { HostToolRegistry } from './host.js';

/** Most names kept from one skill's field: a check needs a list, not whatever a hostile file repeats. */
export const MAX_REQUIRED_TOOLS = 64;

/**
 * The tool names of a `requires` value: a YAML list of strings, or one string
 * of names separated by spaces or commas; names trimmed, each once, in the
 * order written. Anything else (a number, a map) gives [].
 */
export function parseRequires(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(/[\s,]+/) : Array.isArray(value) ? value : [];
  const names = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string' || item.trim() === '') continue;
    names.add(item.trim());
    if (names.size === MAX_REQUIRED_TOOLS) break;
  }
  return [...names];
}

/**
 * The names in `required` the model cannot call on this ctx: neither a tool
 * registered under that name (and not renamed by an alias) nor a registered
 * tool whose alias it is.
 */
export function lackedTools(required: readonly string[], tools: HostToolRegistry, aliases: unknown): string[] {
  if (required.length === 0) return [];
  const aliasMap = aliases instanceof Map ? (aliases as Map<unknown, unknown>) : undefined;
  const seenAs = new Set<string>();
  for (const [name, alias] of aliasMap ?? []) {
    if (typeof name === 'string' && typeof alias === 'string' && alias !== '' && tools.get(name) !== undefined) seenAs.add(alias);
  }
  return required.filter((name) => {
    if (seenAs.has(name)) return false;
    const alias = aliasMap?.get(name);
    const renamed = typeof alias === 'string' && alias !== '' && alias !== name;
    return renamed || tools.get(name) === undefined;
  });
}

/** What a skill (its frontmatter) expects that the model cannot call on `ctx` now: `lackedTools` over the ctx's registry. */
export function lackedToolsOn(
  ctx: { tools: HostToolRegistry; state: Record<string, unknown> },
  metadata: Readonly<Record<string, unknown>>,
): string[] {
  return lackedTools(parseRequires(metadata.requires), ctx.tools, ctx.state.toolAliases);
}

/** The one line an activation carries when the agent lacks tools the skill expects. */
export function lackedToolsLine(lacked: readonly string[]): string {
  return (
    `This agent lacks tools this skill expects (its requires): ${lacked.join(', ')}. ` +
    'Where the instructions use them, do what you can without them and tell the user what could not be done.'
  );
}
