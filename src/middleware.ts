/**
 * skillsMiddleware(options): checks options once, then on every request reads
 * the cached index, puts the catalog into the system prompt, pre-activates
 * mentioned / pinned / matching skills and registers the tools. Skill problems
 * are logged, never thrown into the agent.
 */
import { alreadyActivated, findMentions, isModelInvocable, latestUserMessage, selectActivations, type Activation } from './activation.js';
import { catalogEntries, createCatalog, withCatalog, type Catalog, type CatalogMode } from './catalog.js';
import { discover, loadSkillContent } from './discover/discover.js';
import { createIndexCache } from './index-cache.js';
import { resolveOptions, type ResolvedOptions, type SkillsOptions } from './options.js';
import type { Ranker } from './rank.js';
import {
  activationsOf,
  beginRun,
  createLazySkillIndex,
  createSkillIndex,
  isSkillsState,
  narrowIndex,
  recordCatalog,
  runIndexOf,
  type SkillIndex,
  type SkillsState,
} from './skill-index.js';
import { closestNames } from './text.js';
import { FIND_SKILLS_TOOL, makeFindSkillsTool, rankerForSkills } from './tools/find-skills.js';
import { makeReadResourceTool, READ_RESOURCE_TOOL } from './tools/read-resource.js';
import { makeUseSkillTool, renderActivation, USE_SKILL_TOOL, type IndexSource } from './tools/use-skill.js';
import type { HostMessage, HostTool, Middleware, Next, SkillsContext } from './types.js';
import { watchSkillDirectories, type SkillsWatcher } from './watch.js';

export interface SkillsMiddleware extends Middleware<SkillsContext> {
  /** Stop watching the directories (when `watch` is on). Safe to call more than once. */
  close(): Promise<void>;
}

/** What a request needs from an index, worked out once per index. */
interface Prepared {
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  modelIndex: SkillIndex;
  catalog: Catalog;
  /** Built on first use: only ranked catalogs, find_skills and autoActivate need it. */
  ranker: () => Ranker;
  /** The `always` names this index has, and those it has not (warned about once per index). */
  always: string[];
  unknownAlways: string[];
  /** The over-budget mode last logged at info level, so each index logs it once. */
  loggedMode?: CatalogMode;
}

function prepare(index: SkillIndex, options: ResolvedOptions): Prepared {
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  const ranker = (): Ranker => rankerForSkills(modelIndex.skills);
  return {
    modelIndex,
    ranker,
    catalog: createCatalog(catalogEntries(modelIndex.skills), {
      budget: options.catalogBudget,
      ranker,
      toolName: USE_SKILL_TOOL,
      findToolName: FIND_SKILLS_TOOL,
    }),
    always: options.always.filter((name) => index.get(name) !== undefined),
    unknownAlways: options.always.filter((name) => index.get(name) === undefined),
  };
}

export function skillsMiddleware(options: SkillsOptions): SkillsMiddleware {
  const resolved = resolveOptions(options);
  const cache = createIndexCache({
    load: () => discover(resolved, { lazy: !resolved.preload }),
    toIndex: resolved.preload
      ? createSkillIndex
      : (result, loadedAt) => createLazySkillIndex(result, (entry) => loadSkillContent(entry, resolved), loadedAt),
    ttl: resolved.cacheTtl,
  });
  const prepared = new WeakMap<SkillIndex, Prepared>();
  const preparedFor = (index: SkillIndex): Prepared => {
    let ready = prepared.get(index);
    if (!ready) {
      ready = prepare(index, resolved);
      prepared.set(index, ready);
    }
    return ready;
  };

  // Model-facing tools see only the skills the model may activate.
  const modelIndexOf: IndexSource = (ctx) => {
    const index = runIndexOf(ctx.state) ?? cache.peek();
    return index && preparedFor(index).modelIndex;
  };
  // One instance of each tool per middleware: a rerun can tell its own tools from
  // someone else's, and caches (reads, rankers) are shared by every request.
  const useSkill = makeUseSkillTool(modelIndexOf, {
    max: resolved.maxListedResources,
    readTool: resolved.resourceTool ? READ_RESOURCE_TOOL : undefined,
  });
  const readResource = resolved.resourceTool
    ? makeReadResourceTool((ctx) => runIndexOf(ctx.state) ?? cache.peek(), {
        fs: resolved.fs,
        maxFileSize: resolved.maxFileSize,
        maxSkillSize: resolved.maxSkillSize,
        secretPatterns: resolved.secretPatterns,
        cacheTtl: resolved.cacheTtl,
      })
    : undefined;
  const findSkills = makeFindSkillsTool(modelIndexOf);

  // Watch problems happen between requests; they are logged by the next one.
  const watchProblems: unknown[] = [];
  let watcher: SkillsWatcher | undefined;
  if (resolved.watch) {
    watcher = watchSkillDirectories(resolved.directories, {
      fs: resolved.fs,
      debounceMs: resolved.watch.debounceMs,
      signal: resolved.signal,
      onChange: () => cache.invalidate(),
      onError: (error) => watchProblems.push(error),
    });
  }

  async function skills(ctx: SkillsContext, next: Next): Promise<void> {
    for (const problem of watchProblems.splice(0)) {
      ctx.log.warn('[skills] watch', { error: problem instanceof Error ? problem.message : String(problem) });
    }
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
    const ready = preparedFor(index);
    if (fresh) logDiscovery(ctx, index, durationMs, ready);

    const state = beginRun(ctx.state, index);
    publish(ctx, state);
    if (index.skills.length === 0) return next();

    const query = latestUserMessage(ctx.messages) ?? '';
    const catalog = ready.catalog.render(query);
    recordCatalog(ctx.state, catalog.report);
    if (catalog.report.mode !== 'full') {
      // Ranked catalogs change every turn: say so once per index (or mode), then at debug level.
      const level = ready.loggedMode === catalog.report.mode ? 'debug' : 'info';
      ready.loggedMode = catalog.report.mode;
      ctx.log[level]('[skills] catalog over budget', {
        mode: catalog.report.mode,
        budget: catalog.report.budget,
        length: catalog.report.length,
        listed: catalog.report.included.length,
        shortened: catalog.report.shortened,
        omitted: catalog.report.omitted,
      });
    }
    if (catalog.text !== '' && ready.modelIndex.skills.length > 0) {
      ctx.messages.splice(0, ctx.messages.length, ...withCatalog(ctx.messages, catalog.text));
    }

    registerOnce(ctx, useSkill);
    if (readResource) registerOnce(ctx, readResource);
    const needsSearch = catalog.report.mode === 'names' || catalog.report.mode === 'ranked' || catalog.report.omitted > 0;
    if (resolved.findSkills ?? needsSearch) registerOnce(ctx, findSkills);

    await preActivate(ctx, index, ready, query);
    await next();
  }

  /** Mentions, `always` and auto-activation: inject each chosen skill once per conversation. */
  async function preActivate(ctx: SkillsContext, index: SkillIndex, ready: Prepared, query: string): Promise<void> {
    const activated = activationsOf(ctx.state, index);
    // Earlier turns (kept in the messages) count: a skill is never injected twice in a conversation.
    for (const name of alreadyActivated(ctx.messages)) if (!activated.includes(name)) activated.push(name);

    // The index's lookup, not a set of names: nothing kept per skill for as long as the index lives.
    const mentions = findMentions(query, (name) => index.get(name) !== undefined);
    for (const mention of mentions.unknown) {
      ctx.log.warn('[skills] unknown mention', { mention, suggestions: suggestionsFor(index, mention) });
    }
    const auto = resolved.autoActivate;
    const picks = selectActivations({
      mentions: mentions.known,
      always: ready.always,
      // The ranker covers the model-visible skills only, so hidden ones are never auto-activated.
      auto: auto && { query, ...auto, rank: (text) => ready.ranker().rank(text, Math.max(auto.maxSkills, 5)) },
      alreadyActive: activated,
    });
    for (const pick of picks) await inject(ctx, index, pick, activated);
  }

  async function inject(ctx: SkillsContext, index: SkillIndex, pick: Activation, activated: string[]): Promise<void> {
    let loaded;
    try {
      loaded = await index.loadDetailed(pick.name);
    } catch (error) {
      ctx.log.warn('[skills] could not activate', { skill: pick.name, route: pick.route, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (!loaded) return;
    if (loaded.first) for (const diagnostic of loaded.diagnostics) ctx.log.warn('[skills] warning', diagnostic);
    insertAfterLatestUser(ctx.messages, activationMessages(pick, renderActivation(loaded.skill, { max: resolved.maxListedResources, readTool: readResource && READ_RESOURCE_TOOL })));
    activated.push(pick.name);
    const data = { skill: pick.name, route: pick.route, ...(pick.score === undefined ? {} : { score: pick.score }) };
    ctx.log.info('[skills] activated', data);
    ctx.log.span?.('skills.activate', data);
  }

  function logDiscovery(ctx: SkillsContext, index: SkillIndex, durationMs: number, ready: Prepared): void {
    const summary = {
      skills: index.skills.length,
      errors: index.errors.length,
      warnings: index.warnings.length,
      directories: index.scannedDirectories,
      durationMs,
    };
    ctx.log.info('[skills] discovered', summary);
    ctx.log.span?.('skills.discover', summary);
    for (const diagnostic of index.errors) ctx.log.warn('[skills] skipped', diagnostic);
    for (const diagnostic of index.warnings) ctx.log.warn('[skills] warning', diagnostic);
    for (const name of ready.unknownAlways) {
      ctx.log.warn('[skills] unknown skill in `always`', { skill: name, suggestions: suggestionsFor(index, name) });
    }
  }

  return Object.assign(skills, {
    close: async () => {
      await watcher?.close();
    },
  });
}

/** An activation the model did not ask for, shaped exactly as if it had called use_skill. */
/** Up to three known names close to `name`, for a warning (rare: built only then). */
function suggestionsFor(index: SkillIndex, name: string): string[] {
  return closestNames(
    index.skills.map((entry) => entry.metadata.name),
    name,
  ).slice(0, 3);
}

function activationMessages(pick: Activation, text: string): HostMessage[] {
  const id = `skills_${pick.route}_${pick.name}`;
  const call = { role: 'assistant', content: '', tool_calls: [{ id, name: USE_SKILL_TOOL, arguments: { skill_name: pick.name } }] };
  const result = { role: 'tool', content: text, tool_call_id: id, name: USE_SKILL_TOOL };
  return [call, result];
}

function insertAfterLatestUser(messages: HostMessage[], inserted: readonly HostMessage[]): void {
  let at = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      at = i + 1;
      break;
    }
  }
  // After any activations already placed behind the same user message, so their order is kept.
  while (at < messages.length && isInjected(messages[at])) at++;
  messages.splice(at, 0, ...inserted);
}

function isInjected(message: HostMessage | undefined): boolean {
  const id = (message as { tool_call_id?: unknown; tool_calls?: Array<{ id?: unknown }> } | undefined);
  const callId = id?.tool_call_id ?? id?.tool_calls?.[0]?.id;
  return typeof callId === 'string' && callId.startsWith('skills_');
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
