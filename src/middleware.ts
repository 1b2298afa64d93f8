/**
 * skillsMiddleware(options): checks options once and prepares what every
 * request shares (the index cache, the resource reader, the watcher). Each
 * request then runs the same steps: get the index, continue or start the
 * ctx's run, put the catalog into the system prompt, register the run's
 * tools, and pre-activate mentioned / pinned / matching skills. Skill
 * problems are logged, never thrown into the agent.
 */
import { findMentions, isModelInvocable, MAX_MENTIONS, selectActivations, type Activation } from './activation.js';
import { catalogEntries, createCatalog, withCatalog, type Catalog, type CatalogMode } from './catalog.js';
import { activatedSkills, activationMessages, injectedCallId, insertAfterLatestUser, modelToolName, toolCallIds, userTurn } from './conversation.js';
import { createIndexCache } from './index-cache.js';
import { resolveOptions, type ResolvedOptions, type SkillsOptions } from './options.js';
import type { Ranker } from './rank.js';
import { createResourceReader, type ResourceReader } from './resource-reader.js';
import { isSkillsState, runOf, SkillsRun } from './run.js';
import { narrowIndex, type SkillIndex, type SkillsState } from './skill-index.js';
import { createSkillSource } from './skill-source.js';
import { suggestNames } from './suggest.js';
import { FIND_SKILLS_TOOL, READ_RESOURCE_TOOL, USE_SKILL_TOOL } from './tool-names.js';
import { makeFindSkillsTool, rankerForSkills } from './tools/find-skills.js';
import { makeReadResourceTool } from './tools/read-resource.js';
import { makeUseSkillTool, renderActivation, type ActivationTextOptions } from './tools/use-skill.js';
import type { HostMessage, HostModel, HostTool, Middleware, Next, SkillsContext } from './types.js';
import { LiveReload } from './live-reload.js';

export interface SkillsMiddleware extends Middleware<SkillsContext> {
  /** Stop watching the directories (when `watch` is on). Safe to call more than once. */
  close(): Promise<void>;
}

/** What every request needs from one index, worked out once per index. */
interface Library {
  index: SkillIndex;
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  modelIndex: SkillIndex;
  catalog: Catalog;
  /** Built on first use: only ranked catalogs, find_skills and autoActivate need it. */
  ranker: () => Ranker;
  /** The `always` names this index has, and those it has not (warned about once per index). */
  always: string[];
  unknownAlways: string[];
  /** How long the discovery that built the index took, in milliseconds. */
  durationMs?: number;
  /** Discovery is logged by the first request that uses the index, even when the one that started the scan was aborted. */
  logged: boolean;
  /** The over-budget mode last logged at info level, so each index logs it once. */
  loggedMode?: CatalogMode;
}

/** The tools of one run, made once per run and bound to it. */
interface RunTools {
  useSkill: HostTool;
  readResource?: HostTool;
  findSkills: HostTool;
}

function libraryOf(index: SkillIndex, options: ResolvedOptions): Library {
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  const ranker = (): Ranker => rankerForSkills(modelIndex.skills);
  return {
    index,
    modelIndex,
    ranker,
    catalog: createCatalog(catalogEntries(modelIndex.skills), {
      budget: options.catalogBudget,
      ranker,
      toolName: USE_SKILL_TOOL,
      // null: find_skills is never registered, so the catalog must not name it.
      findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
    }),
    always: options.always.filter((name) => index.get(name) !== undefined),
    unknownAlways: options.always.filter((name) => index.get(name) === undefined),
    logged: false,
  };
}

export function skillsMiddleware(options: SkillsOptions): SkillsMiddleware {
  const resolved = resolveOptions(options);
  const source = createSkillSource(resolved);
  const cache = createIndexCache({
    load: source.load,
    toIndex: source.toIndex,
    // While the watcher cannot see every folder, changes are only found by rescanning: never wait longer than it says.
    ttl: () => liveReload?.ttl() ?? resolved.cacheTtl,
  });
  // Keyed by our own index objects: a rebuilt index gets a new library, the old one is collected with it.
  const libraries = new WeakMap<SkillIndex, Library>();
  const libraryFor = (index: SkillIndex): Library => {
    let library = libraries.get(index);
    if (!library) {
      library = libraryOf(index, resolved);
      libraries.set(index, library);
    }
    return library;
  };
  // One reader for every run: its file cache is shared; each run brings its own read budget.
  const reader: ResourceReader | undefined = resolved.resourceTool
    ? createResourceReader({
        fs: resolved.fs,
        maxFileSize: resolved.maxFileSize,
        maxSkillSize: resolved.maxSkillSize,
        secretPatterns: resolved.secretPatterns,
        cacheTtl: resolved.cacheTtl,
      })
    : undefined;
  const activationText: ActivationTextOptions = {
    max: resolved.maxListedResources,
    maxInstructionChars: resolved.maxInstructionChars,
    ...(reader ? { readTool: READ_RESOURCE_TOOL } : {}),
  };
  // Tools made by this instance (for any run): a shared registry may still hold an earlier run's.
  const ownTools = new WeakSet<HostTool>();
  const runTools = new WeakMap<SkillsRun, RunTools>();

  // Watch problems happen between requests; they are logged by the next one.
  const { watch } = resolved;
  // A prebuilt index cannot know what changed: after a change seen on disk, scan.
  const liveReload = watch ? new LiveReload({ ...resolved, watch }, cache, () => source.preferScan()) : undefined;

  async function skills(ctx: SkillsContext, next: Next): Promise<void> {
    liveReload?.report(ctx.log);
    const index = await currentIndex(ctx);
    if (!index) return next();
    const library = libraryFor(index);
    if (!library.logged) logDiscovery(ctx, library);

    const run = continueRun(ctx, index);
    if (index.skills.length === 0) return next();

    const turn = userTurn(ctx.messages, ctx.input);
    renderCatalog(ctx, library, run, turn.text);
    registerRunTools(ctx, run, library);
    const injected = await preActivate(ctx, library, run, turn.text);
    if (injected.length === 0) return next();
    if (!turn.pending) {
      insertAfterLatestUser(ctx.messages, injected);
      return next();
    }
    await withDeferredInjection(ctx, injected, next);
  }

  /** The cached index; undefined (logged) when discovery itself failed. Rethrows an abort. */
  async function currentIndex(ctx: SkillsContext): Promise<SkillIndex | undefined> {
    try {
      const cached = await cache.get(ctx.signal);
      const library = libraryFor(cached.index);
      library.durationMs ??= cached.durationMs;
      return cached.index;
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      // Discovery itself reports bad skills as diagnostics; reaching here is a bug or a broken fs.
      ctx.log.error('[skills] discovery failed; continuing without skills', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** The ctx's run: continued on a rerun by this instance (moved to a rebuilt index), else a new one; published either way. */
  function continueRun(ctx: SkillsContext, index: SkillIndex): SkillsRun {
    const existing = runOf(ctx.state.skills) ?? runOf(ctx.skills);
    let run: SkillsRun;
    if (existing?.owner === skills) {
      run = existing;
      run.index = index;
    } else {
      run = new SkillsRun(skills, index);
    }
    ctx.skills = run.view;
    ctx.state.skills = run.view;
    return run;
  }

  function renderCatalog(ctx: SkillsContext, library: Library, run: SkillsRun, query: string): void {
    const catalog = library.catalog.render(query);
    run.catalog = catalog.report;
    if (catalog.report.mode !== 'full') {
      // Ranked catalogs change every turn: say so once per index (or mode), then at debug level.
      const level = library.loggedMode === catalog.report.mode ? 'debug' : 'info';
      library.loggedMode = catalog.report.mode;
      ctx.log[level]('[skills] catalog over budget', {
        mode: catalog.report.mode,
        budget: catalog.report.budget,
        length: catalog.report.length,
        listed: catalog.report.included.length,
        shortened: catalog.report.shortened,
        omitted: catalog.report.omitted,
      });
    }
    if (catalog.text !== '' && library.modelIndex.skills.length > 0) {
      ctx.messages.splice(0, ctx.messages.length, ...withCatalog(ctx.messages, catalog.text));
    }
  }

  function toolsOf(run: SkillsRun): RunTools {
    let tools = runTools.get(run);
    if (!tools) {
      // Model-facing tools see only the skills the model may activate; reads cover every loaded skill.
      const modelIndex = () => libraryFor(run.index).modelIndex;
      tools = {
        useSkill: makeUseSkillTool({
          source: modelIndex,
          isActive: (name) => run.activated.includes(name),
          activate: (name) => run.activate(name),
          searchTool: () => (searchRegistered(libraryFor(run.index)) ? FIND_SKILLS_TOOL : undefined),
          text: activationText,
        }),
        findSkills: makeFindSkillsTool(modelIndex),
        ...(reader ? { readResource: makeReadResourceTool({ source: () => run.index, reader, budget: run.reads }) } : {}),
      };
      for (const tool of Object.values(tools)) ownTools.add(tool);
      runTools.set(run, tools);
    }
    return tools;
  }

  function registerRunTools(ctx: SkillsContext, run: SkillsRun, library: Library): void {
    const tools = toolsOf(run);
    register(ctx, tools.useSkill);
    if (tools.readResource) register(ctx, tools.readResource);
    if (searchRegistered(library)) register(ctx, tools.findSkills);
  }

  /** Whether runs on this library get find_skills: the catalog names it exactly when it needs it (fixed per index, not per query). */
  function searchRegistered(library: Library): boolean {
    return (resolved.findSkills ?? library.catalog.needsSearch) && library.modelIndex.skills.length > 0;
  }

  /** Register `tool` unless this ctx has it; replace an earlier run's copy of ours, never someone else's tool. */
  function register(ctx: SkillsContext, tool: HostTool): void {
    const registered = ctx.tools.get(tool.name);
    if (registered === tool) return;
    if (registered === undefined || ownTools.has(registered)) {
      ctx.tools.register(tool);
    } else {
      ctx.log.warn(`[skills] a tool named ${tool.name} is already registered; leaving it in place`, { tool: tool.name });
    }
  }

  /** Mentions, `always` and auto-activation: the messages that activate each chosen skill once per conversation. */
  async function preActivate(ctx: SkillsContext, library: Library, run: SkillsRun, query: string): Promise<HostMessage[]> {
    const { index } = library;
    const toolName = modelToolName(ctx.state.toolAliases, USE_SKILL_TOOL);
    // Earlier turns count: a skill is never injected twice in a conversation.
    const earlier = activatedSkills(ctx.messages, (requested) => index.get(requested)?.metadata.name, [...new Set([USE_SKILL_TOOL, toolName])]);
    for (const name of earlier) run.activate(name);

    // The index's lookup, not a set of names: nothing kept per skill for as long as the index lives.
    const mentions = findMentions(query, (name) => index.get(name) !== undefined);
    // Suggestions for the first few only: each costs a bounded search, and a flood of unknown names is noise.
    mentions.unknown.forEach((mention, i) => {
      ctx.log.warn('[skills] unknown mention', { mention, ...(i < SUGGESTED_MENTIONS ? { suggestions: suggestionsFor(library, mention) } : {}) });
    });
    if (mentions.ignored !== undefined && mentions.ignored > 0) {
      ctx.log.warn('[skills] too many mentions', { examined: MAX_MENTIONS, ignored: mentions.ignored });
    }
    const auto = resolved.autoActivate;
    const picks = selectActivations({
      mentions: mentions.known,
      always: library.always,
      // The ranker covers the model-visible skills only, so hidden ones are never auto-activated.
      auto: auto && { query, ...auto, rank: (text) => library.ranker().rank(text, Math.max(auto.maxSkills, 5)) },
      alreadyActive: run.activated,
    });
    const messages: HostMessage[] = [];
    const taken = toolCallIds(ctx.messages);
    for (const pick of picks) {
      const text = await activationTextFor(ctx, index, pick);
      if (text === undefined || !run.activate(pick.name)) continue;
      const id = injectedCallId(pick.route, pick.name, taken);
      taken.add(id);
      messages.push(...activationMessages(id, pick.name, text, toolName));
      const data = { skill: pick.name, route: pick.route, ...(pick.score === undefined ? {} : { score: pick.score }) };
      ctx.log.info('[skills] activated', data);
      ctx.log.span?.('skills.activate', data);
    }
    return messages;
  }

  async function activationTextFor(ctx: SkillsContext, index: SkillIndex, pick: Activation): Promise<string | undefined> {
    try {
      const loaded = await index.loadDetailed(pick.name);
      if (!loaded) return undefined;
      if (loaded.first) for (const diagnostic of loaded.diagnostics) ctx.log.warn('[skills] warning', diagnostic);
      return renderActivation(loaded.skill, activationText);
    } catch (error) {
      ctx.log.warn('[skills] could not activate', { skill: pick.name, route: pick.route, error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  function logDiscovery(ctx: SkillsContext, library: Library): void {
    library.logged = true;
    const { index } = library;
    const summary = {
      skills: index.skills.length,
      errors: index.errors.length,
      warnings: index.warnings.length,
      directories: index.scannedDirectories,
      durationMs: library.durationMs,
    };
    ctx.log.info('[skills] discovered', summary);
    ctx.log.span?.('skills.discover', summary);
    for (const diagnostic of index.errors) ctx.log.warn('[skills] skipped', diagnostic);
    for (const diagnostic of index.warnings) ctx.log.warn('[skills] warning', diagnostic);
    for (const name of library.unknownAlways) {
      ctx.log.warn('[skills] unknown skill in `always`', { skill: name, suggestions: suggestionsFor(library, name) });
    }
  }

  return Object.assign(skills, {
    close: async () => {
      await liveReload?.close();
    },
  });
}

/**
 * Placed before `inputToMessage`, the middleware runs before the user's
 * message exists, and an activation must follow that message (Anthropic wants
 * the user's turn first, OpenAI an answer right after each call). So the
 * activations wait for the request's first model call on the conversation,
 * by which time every middleware in between has run.
 */
async function withDeferredInjection(ctx: SkillsContext, injected: readonly HostMessage[], next: Next): Promise<void> {
  const model = ctx.model;
  if (!model || typeof model.generate !== 'function') {
    // No model to wait for: the best place left is the end of the conversation.
    insertAfterLatestUser(ctx.messages, injected);
    return next();
  }
  let pending = true;
  const generate = model.generate as (this: unknown, ...args: unknown[]) => unknown;
  const wrapped: HostModel = Object.create(model, {
    generate: {
      value(messages: unknown, ...rest: unknown[]): unknown {
        // Only the conversation itself: another middleware may ask the model about something else first.
        if (pending && messages === ctx.messages) {
          pending = false;
          insertAfterLatestUser(ctx.messages, injected);
        }
        return generate.call(model, messages, ...rest);
      },
    },
  }) as HostModel;
  ctx.model = wrapped;
  try {
    await next();
  } finally {
    if (ctx.model === wrapped) ctx.model = model;
  }
}

/** Unknown mentions per message that get suggestions in the log. */
const SUGGESTED_MENTIONS = 3;

/** Up to three known names for an unknown `name`, for a warning (rare: built only then). */
function suggestionsFor(library: Library, name: string): string[] {
  const names = library.index.skills.map((entry) => entry.metadata.name);
  return suggestNames({ names, rank: (query, limit) => library.ranker().rank(query, limit).map((r) => r.name) }, name, 3);
}

/** The skills this run sees, as published by skillsMiddleware; undefined before it ran. */
export function getSkills(ctx: { state: Record<string, unknown>; skills?: unknown }): SkillsState | undefined {
  if (isSkillsState(ctx.skills)) return ctx.skills;
  if (isSkillsState(ctx.state.skills)) return ctx.state.skills;
  return undefined;
}
