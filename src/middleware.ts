/**
 * skillsMiddleware(options): checks options once, then on every request reads
 * the cached index, puts the catalog into the system prompt and registers
 * use_skill. Skill problems are logged, never thrown into the agent.
 */
import { catalogEntries, renderCatalog, withCatalog } from './catalog.js';
import { discover, loadSkillContent } from './discover/discover.js';
import { createIndexCache } from './index-cache.js';
import { resolveOptions, type SkillsOptions } from './options.js';
import { beginRun, createLazySkillIndex, createSkillIndex, isSkillsState, runIndexOf, type SkillsState } from './skill-index.js';
import { makeReadResourceTool, READ_RESOURCE_TOOL } from './tools/read-resource.js';
import { makeUseSkillTool, USE_SKILL_TOOL, type IndexSource } from './tools/use-skill.js';
import type { HostTool, Middleware, Next, SkillsContext } from './types.js';

export type SkillsMiddleware = Middleware<SkillsContext>;

export function skillsMiddleware(options: SkillsOptions): SkillsMiddleware {
  const resolved = resolveOptions(options);
  const cache = createIndexCache({
    load: () => discover(resolved, { lazy: !resolved.preload }),
    toIndex: resolved.preload
      ? createSkillIndex
      : (result, loadedAt) => createLazySkillIndex(result, (entry) => loadSkillContent(entry, resolved), loadedAt),
    ttl: resolved.cacheTtl,
  });
  const indexOf: IndexSource = (ctx) => runIndexOf(ctx.state) ?? cache.peek();
  // One instance of each tool per middleware: a rerun can tell its own tools from
  // someone else's, and the read cache is shared by every request.
  const tools: HostTool[] = [
    makeUseSkillTool(indexOf, {
      max: resolved.maxListedResources,
      readTool: resolved.resourceTool ? READ_RESOURCE_TOOL : undefined,
    }),
  ];
  if (resolved.resourceTool) {
    tools.push(
      makeReadResourceTool(indexOf, {
        fs: resolved.fs,
        maxFileSize: resolved.maxFileSize,
        maxSkillSize: resolved.maxSkillSize,
        secretPatterns: resolved.secretPatterns,
        cacheTtl: resolved.cacheTtl,
      }),
    );
  }

  return async function skills(ctx: SkillsContext, next: Next): Promise<void> {
    let cached;
    try {
      cached = await cache.get(ctx.signal);
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      // Discovery itself reports bad skills as diagnostics; reaching here is a bug or a broken fs.
      ctx.log.error('[skills] discovery failed; continuing without skills', {
        error: error instanceof Error ? error.message : String(error),
      });
      return next();
    }
    const { index, fresh, durationMs } = cached;
    if (fresh) {
      ctx.log.info('[skills] discovered', {
        skills: index.skills.length,
        errors: index.errors.length,
        warnings: index.warnings.length,
        directories: index.scannedDirectories,
        durationMs,
      });
      for (const diagnostic of index.errors) ctx.log.warn('[skills] skipped', diagnostic);
      for (const diagnostic of index.warnings) ctx.log.warn('[skills] warning', diagnostic);
    }

    const state = beginRun(ctx.state, index);
    publish(ctx, state);

    if (index.skills.length > 0) {
      const updated = withCatalog(ctx.messages, renderCatalog(catalogEntries(index.skills), USE_SKILL_TOOL));
      ctx.messages.splice(0, ctx.messages.length, ...updated);
      for (const tool of tools) registerOnce(ctx, tool);
    }
    await next();
  };
}

/** Register `tool` unless this ctx already has it; never replace someone else's tool of the same name. */
function registerOnce(ctx: SkillsContext, tool: HostTool): void {
  const registered = ctx.tools.get(tool.name);
  if (registered === undefined) {
    ctx.tools.register(tool);
  } else if (registered !== tool) {
    ctx.log.warn(`[skills] a tool named ${tool.name} is already registered; leaving it in place`, { tool: tool.name });
  }
}

function publish(ctx: SkillsContext, state: SkillsState): void {
  ctx.skills = state;
  ctx.state.skills = state;
}

/** The skills this run sees, as published by skillsMiddleware; undefined before it ran. */
export function getSkills(ctx: { state: Record<string, unknown>; skills?: unknown }): SkillsState | undefined {
  if (isSkillsState(ctx.skills)) return ctx.skills;
  if (isSkillsState(ctx.state.skills)) return ctx.state.skills;
  return undefined;
}
