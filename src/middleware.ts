/**
 * skillsMiddleware(options): checks options once and prepares what every
 * request shares (the index cache, the resource reader, the tools' factory,
 * the watcher). Each request then runs the same steps: get the index,
 * continue or start the ctx's run, put the catalog into the system prompt,
 * register the run's tools, and pre-activate mentioned / pinned / matching
 * skills. Skill problems are logged, never thrown into the agent.
 */
import { createTrustState, expiryWatch } from './trust/state.js';
import { trustedReads } from './resources/trusted-reads.js';
import type { BodyIndexingOutcome } from './catalog/body-indexer.js';
import { withCatalog } from './catalog/system-prompt.js';
import { insertAfterLatestUser, modelToolName, userTurn } from './run/conversation.js';
import { ActivationGate } from './run/gate.js';
import { KEPT_IN_VIEW, keepInView, loadActive, type KeepInViewSettings } from './runtime/keep-in-view.js';
import type { Next } from './base/host.js';
import { untrustedEvent } from './base/skill-event.js';
import { emitEvent } from './run/events.js';
import { createIndexCache } from './index/index-cache.js';
import { Libraries, suggestionsFor, type Library } from './run/library.js';
import { loadedIndexOf, type LoadedIndex } from './runtime/loaded-index.js';
import { LiveReload } from './source/live-reload.js';
import { ChangeFeed } from './source/changes.js';
import { Freshness } from './index/freshness.js';
import { resolveOptions } from './config/resolve.js';
import type { ResolvedOptions } from './config/options.js';
import { openStorage, type StoredOptions } from './source/storage.js';
import { hooksOf, type RunHooks, type SkillsOptions } from './run/options.js';
import { PluginRoots } from './run/plugin-root.js';
import { placeThenNext, preActivate, type PreActivationSettings } from './runtime/pre-activation.js';
import { createResourceReader } from './resources/resource-reader.js';
import { bytesReadIn } from './tools/read-resource.js';
import { isSkillsState, runOf, SkillsRun } from './run/run.js';
import { RunToolbox } from './run/run-tools.js';
import type { SkillIndex } from './index/skill-index.js';
import type { SkillsState, Middleware, SkillsContext } from './run/context.js';
import { createSkillSource } from './index/skill-source.js';
import { prebuiltReader } from './index/prebuilt/read.js';
import { RANKER_FORMAT } from './catalog/rank/data.js';
import { resourceLimits } from './discover/resources.js';
import { READ_RESOURCE_TOOL, USE_SKILL_TOOL } from './base/tool-names.js';
import { askVisible, type SkillVisibility } from './run/visibility.js';
import { MeaningRuntime } from './meaning/meaning-runtime.js';
import type { EmbeddingOutcome } from './meaning/skill-vectors.js';
import { BACKGROUND_DEFAULTS } from './config/defaults.js';
import { SkillFolders } from './source/skill-folders.js';
import type { FolderOf } from './run/run-tools.js';
import { copyTrustOf, reportUntrusted } from './runtime/trusted-copies.js';
import { CopyError } from './storage/copies/copy-error.js';
import type { ReadIntegrity } from './resources/resource-reader.js';

/** Failures of `visible` quoted in the one log line per request (the line counts them all). */
const LOGGED_VISIBILITY_FAILURES = 10;

export interface SkillsMiddleware extends Middleware<SkillsContext> {
  /**
   * Stop watching the directories (when `watch` is on) and stop reading the
   * instructions in the background (`rankInstructions`). Safe to call more than once.
   */
  close(): Promise<void>;
  /**
   * Resolves once ranking reads the instructions of the skills the latest request saw
   * (`rankInstructions`), starting that reading now instead of a second after the
   * request. Resolves at once before any request, or with `rankInstructions: false`.
   */
  instructionsRanked(): Promise<void>;
  /**
   * Resolves once the skills of the latest request's index are embedded (`embeddings`), starting
   * now if they wait, with what was done; undefined at once before any request or without `embeddings`.
   */
  skillsEmbedded(): Promise<EmbeddingOutcome | undefined>;
  /**
   * Every folder a skill's scripts may run from, known before the first
   * request: the configured folders on this disk, the configured packages'
   * folders (as Node finds them now), and the root of the bucket skills'
   * local copies (made now when missing). For the app's terminal tool:
   * `createTerminalTool({ roots: [process.cwd(), ...skills.localRoots()] })`.
   */
  localRoots(): string[];
}

export function skillsMiddleware(options: SkillsOptions): SkillsMiddleware {
  const runtime = new SkillsRuntime(resolveOptions(options), hooksOf(options));
  return Object.assign((ctx: SkillsContext, next: Next) => runtime.handle(ctx, next), {
    close: () => runtime.close(),
    instructionsRanked: () => runtime.instructionsRanked(),
    skillsEmbedded: () => runtime.skillsEmbedded(),
    localRoots: () => runtime.folders.localRoots(),
  });
}

/** Everything a middleware instance shares between requests, and the steps of one request. */
class SkillsRuntime {
  private readonly options: StoredOptions;
  private readonly freshness: Freshness<LoadedIndex>;
  private readonly libraries: Libraries;
  private readonly toolbox: RunToolbox;
  private readonly activation: PreActivationSettings;
  private readonly meaning: MeaningRuntime | undefined;
  /** Each skill's folder on this machine (a bucket skill's local copy), and the roots an app's terminal tool needs. */
  readonly folders: SkillFolders;
  /** The index whose skills the local copies were last kept for: a rebuild drops the copies of skills it no longer has. */
  private copiesOf: SkillIndex | undefined;
  /** The ctx of the request that began last: where a `trust` finding's event goes (found during it, or during one beside it). */
  private latest: SkillsContext | undefined;

  constructor(
    resolved: ResolvedOptions,
    private readonly hooks: RunHooks,
  ) {
    this.meaning = resolved.embeddings && new MeaningRuntime(resolved.embeddings);
    const { options, limits, libraries, freshness, trust } = openSkills(resolved, this.meaning);
    // Each `trust` finding is an event, in either mode, given once: report mode shows `onEvent` what enforcing refuses.
    trust?.onFinding((diagnostic, skill) =>
      emitEvent(untrustedEvent(diagnostic, skill, trust.enforcing), this.latest?.log, this.latest, hooks.onEvent),
    );
    this.options = options;
    this.libraries = libraries;
    this.freshness = freshness;
    // One reader for every run: its file cache is shared; each run brings its own read budget.
    const integrity = trust && trustedReads(trust);
    const reader = options.resourceTool
      ? createResourceReader({ ...options, ...(integrity ? { integrity } : {}) }, limits.isSecret)
      : undefined;
    const text = {
      max: options.maxListedResources,
      maxInstructionChars: options.maxInstructionChars,
      ...(reader ? { readTool: READ_RESOURCE_TOOL } : {}),
    };
    const pluginRoots = new PluginRoots(options.fs);
    const gate = new ActivationGate({ approve: hooks.approve, onEvent: hooks.onEvent });
    this.folders = new SkillFolders(options, trust && copyTrustOf(trust));
    const folderOf = localFolderOf(this.folders, integrity);
    this.toolbox = new RunToolbox(reader, text, pluginRoots, gate, this.meaning, folderOf);
    this.activation = { autoActivate: options.autoActivate, text, pluginRoots, gate, folderOf };
  }

  async handle(ctx: SkillsContext, next: Next): Promise<void> {
    this.latest = ctx;
    this.freshness.report(ctx.log);
    const loaded = await this.currentIndex(ctx);
    if (!loaded) return next();
    await this.keepCopiesOf(ctx, loaded.index);
    const wholeLibrary = loaded.library;
    // After the library: a prebuilt index's vectors were just taken, or not (warned once).
    this.meaning?.report(ctx.log);
    if (!wholeLibrary.log.discovery) logDiscovery(ctx, loaded);
    if (!wholeLibrary.log.bodies && wholeLibrary.bodies?.outcome) logBodies(ctx, wholeLibrary, wholeLibrary.bodies.outcome);
    // Everything below reads only the part of the index this request may see.
    const { visible } = this.hooks;
    const library = visible ? await this.visiblePart(ctx, loaded, visible) : wholeLibrary;
    const { index } = library;
    const run = this.continueRun(ctx, library);
    if (index.skills.length === 0) return next();

    const turn = userTurn(ctx.messages, ctx.input);
    // Only a ranked catalog reads the message's meaning: a full one lists every skill anyway.
    if (this.meaning && library.catalog.needsSearch) await this.meaning.prepare(library.meaning, turn.text, ctx.log);
    renderCatalog(ctx, library, run, turn.text);
    this.toolbox.register(ctx, run);
    const injected = await preActivate(ctx, library, run, turn.text, this.activation);
    // After this request's ranking (the catalog, autoActivate); find_skills' own is told at the next request.
    if (!wholeLibrary.log.damage) logRankingDamage(ctx, wholeLibrary);
    const inject = injected.messages.length === 0 ? undefined : () => insertAfterLatestUser(ctx.messages, injected.messages);
    const keep = await this.keepInViewStep(ctx, run, index);
    // Whether the agent has the tools a skill requires is known once every middleware before the model has run.
    const atModelCall = inOrder(keep, injected.noteLackedTools);
    // Before inputToMessage both wait for the model call; after it, activations go in now, behind the user's message.
    if (turn.pending) await placeThenNext(ctx, undefined, inOrder(inject, atModelCall), next);
    else await placeThenNext(ctx, inject, atModelCall, next);
  }

  /**
   * The kept-in-view step, ready to run where the model's messages are final:
   * undefined when it is off or nothing is active.
   */
  private async keepInViewStep(ctx: SkillsContext, run: SkillsRun, index: SkillIndex): Promise<(() => void) | undefined> {
    const budget = this.options.keepInView;
    if (!budget || run.activated.length === 0) return undefined;
    // Only visible skills load (index is this request's part), and only approved ones may come back.
    await this.approveKeptInView(ctx, run, index);
    const loaded = await loadActive(ctx, run, index, this.activation.pluginRoots, this.activation.folderOf);
    const settings: KeepInViewSettings = {
      budget,
      text: this.activation.text,
      toolName: modelToolName(ctx.state.toolAliases, USE_SKILL_TOOL),
    };
    return () => {
      const { kept, left } = keepInView(ctx, run, loaded, settings);
      const { gate } = this.activation;
      for (const { skill, chars, cut, changed } of kept) {
        const event = { type: 'kept-in-view', skill, route: KEPT_IN_VIEW, size: chars, outcome: cut ? 'cut' : 'ok' } as const;
        gate.emit(run, changed ? { ...event, changed } : event, ctx.log);
      }
      for (const { skill } of left)
        gate.emit(run, { type: 'kept-in-view', skill, route: KEPT_IN_VIEW, size: 0, outcome: 'left-out' }, ctx.log);
    };
  }

  /**
   * `approve` for active skills this run has no decision on: those it
   * recalled from the conversation (a resumed one, in a new ctx) rather than
   * activated itself. A denied one is ended: never put back, nor recalled.
   */
  private async approveKeptInView(ctx: SkillsContext, run: SkillsRun, index: SkillIndex): Promise<void> {
    if (!this.hooks.approve) return;
    for (const name of [...run.activated]) {
      const entry = index.get(name);
      if (!entry || run.approvals.has(name)) continue;
      const decision = await this.activation.gate.check(run, entry, KEPT_IN_VIEW, ctx.log, run.arguments.get(name));
      if (!decision.approved) run.end(name);
    }
  }

  instructionsRanked(): Promise<void> {
    return this.libraries.instructionsRanked();
  }

  skillsEmbedded(): Promise<EmbeddingOutcome | undefined> {
    return this.meaning?.ready() ?? Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    this.libraries.close();
    this.meaning?.close();
    await this.freshness.close();
    await this.folders.close();
  }

  /** After a rebuild, the local copies of bucket skills the index no longer holds are removed (a failure is logged; requests go on). */
  private async keepCopiesOf(ctx: SkillsContext, index: SkillIndex): Promise<void> {
    if (!this.folders.copies || index === this.copiesOf) return;
    this.copiesOf = index;
    try {
      await this.folders.keepOnly(index.skills.map((skill) => skill.directory));
    } catch (error) {
      ctx.log.warn('[skills] could not remove the local copies of removed skills', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** The cached index; undefined (logged) when discovery itself failed. Rethrows an abort. */
  private async currentIndex(ctx: SkillsContext): Promise<LoadedIndex | undefined> {
    try {
      return (await this.freshness.index(ctx.signal)).index;
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      // Discovery itself reports bad skills as diagnostics; reaching here is a bug or a broken fs.
      ctx.log.error('[skills] discovery failed; continuing without skills', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** The skills `visible` shows this request (asked once per skill); its failures are logged in one line. */
  private async visiblePart(ctx: SkillsContext, loaded: LoadedIndex, visible: SkillVisibility): Promise<Library> {
    const { hidden, failures } = await askVisible(loaded.index, visible, ctx);
    if (failures.length > 0) {
      ctx.log.error('[skills] visible failed; those skills are hidden for this request', {
        count: failures.length,
        failures: failures.slice(0, LOGGED_VISIBILITY_FAILURES),
      });
    }
    return loaded.visiblePart(hidden);
  }

  /** The ctx's run, seeing `library`: continued on a rerun by this instance (moved to a rebuilt index), else a new one; published either way. */
  private continueRun(ctx: SkillsContext, library: Library): SkillsRun {
    const existing = runOf(ctx.state.skills) ?? runOf(ctx.skills);
    const run = existing?.owner === this ? existing : new SkillsRun(this, library.index);
    // A new run on messages read before (a resumed conversation): its reads count against the per-run budget.
    // Its activations are recalled by preActivate, whose index lookups they need.
    if (run !== existing) for (const [skill, bytes] of bytesReadIn(ctx.messages)) run.reads.set(skill, bytes);
    run.see(library);
    run.ctx = ctx;
    run.follow(ctx);
    ctx.skills = run.view;
    ctx.state.skills = run.view;
    return run;
  }
}

/**
 * Storage, where the skills come from, and the owner of their freshness with
 * the cache it keeps: made in the order each needs the one before. The
 * watcher and the pollers report changes from their own callbacks, never
 * while this runs, and the owner listens from its construction.
 */
function openSkills(resolved: ResolvedOptions, meaning: MeaningRuntime | undefined) {
  const changes = new ChangeFeed();
  const options = openStorage(resolved, changes);
  // The secret patterns compiled once: every listing (discovery, activation) and every read use this matcher.
  const limits = resourceLimits(options);
  const libraries = new Libraries(options, meaning);
  // `trust`: one state for the middleware's life (manifests admitted, rollback); a skill refused at activation rebuilds the index.
  const trust = options.trust && createTrustState(options.trust, () => changes.report('unseen'));
  // An index file's ranker data is read as this version's ranker reads it.
  const source = createSkillSource(options, { limits, reader: prebuiltReader(RANKER_FORMAT), trust });
  const { watch } = options;
  const folders = watch ? new LiveReload({ ...options, watch }, changes) : undefined;
  const cache = createIndexCache({
    load: source.load,
    // Each load becomes a LoadedIndex, which builds its library once, on first use.
    toIndex: (load, loadedAt, durationMs) => loadedIndexOf(load, source.indexOf(load, loadedAt), durationMs, libraries),
    ttl: options.cacheTtl,
  });
  const freshness = new Freshness({
    cache,
    ttl: options.cacheTtl,
    signal: options.signal,
    changes,
    // A manifest that expires while its index is held: the next request rebuilds it, and refuses the place.
    sources: [folders, options.bucketSource, trust && expiryWatch(trust)],
    // A prebuilt index cannot know what changed: after a change seen on disk, scan.
    onDiskChange: () => source.preferScan(),
  });
  return { options, limits, libraries, freshness, trust };
}

/** One step that runs the given steps in order; undefined when there are none. */
function inOrder(...steps: Array<(() => void) | undefined>): (() => void) | undefined {
  const present = steps.filter((step): step is () => void => step !== undefined);
  if (present.length === 0) return undefined;
  return () => {
    for (const step of present) step();
  };
}

function renderCatalog(ctx: SkillsContext, library: Library, run: SkillsRun, query: string): void {
  const catalog = library.catalog.render(query);
  run.catalog = catalog.report;
  const { report } = catalog;
  if (report.mode !== 'full') {
    // Ranked catalogs change every turn: say so once per index (or mode), then at debug level.
    const level = library.log.mode === report.mode ? 'debug' : 'info';
    library.log.mode = report.mode;
    const { mode, budget, length, shortened, omitted } = report;
    ctx.log[level]('[skills] catalog over budget', { mode, budget, length, listed: report.included.length, shortened, omitted });
  }
  if (catalog.text !== '' && library.modelIndex.skills.length > 0) {
    ctx.messages.splice(0, ctx.messages.length, ...withCatalog(ctx.messages, catalog.text));
  }
}

/** Once per index: a prebuilt index's term whose postings ranking found damaged (that term ranks nothing until a rebuild). */
function logRankingDamage(ctx: SkillsContext, library: Library): void {
  const damage = library.rankingDamage();
  if (!damage) return;
  library.log.damage = true;
  ctx.log.warn('[skills] warning', damage);
}

/** Once per index: ranking now reads the instructions, and which SKILL.md files could not be read for it. */
function logBodies(ctx: SkillsContext, library: Library, outcome: BodyIndexingOutcome): void {
  library.log.bodies = true;
  const level = outcome.skipped > 0 ? 'warn' : 'info';
  ctx.log[level]('[skills] ranking reads the instructions', outcome);
}

function logDiscovery(ctx: SkillsContext, loaded: LoadedIndex): void {
  const { library, index } = loaded;
  library.log.discovery = true;
  const summary = {
    skills: index.skills.length,
    errors: index.errors.length,
    warnings: index.warnings.length,
    directories: index.scannedDirectories,
    durationMs: loaded.durationMs,
  };
  ctx.log.info('[skills] discovered', summary);
  ctx.log.span?.('skills.discover', summary);
  if (library.bucketReads) logBucketReads(ctx, library.bucketReads);
  for (const diagnostic of index.errors) ctx.log.warn('[skills] skipped', diagnostic);
  for (const diagnostic of index.warnings) ctx.log.warn('[skills] warning', diagnostic);
  for (const name of library.unknownAlways) {
    ctx.log.warn('[skills] unknown skill in `always`', { skill: name, suggestions: suggestionsFor(library, name) });
  }
}

/** Once per index: ranking by the instructions will GET every SKILL.md from storage (bucket or container), as an index built with them would not. */
function logBucketReads(ctx: SkillsContext, gets: number): void {
  ctx.log.info('[skills] the index holds no instructions: every process GETs each SKILL.md from storage to rank by them', {
    gets,
    afterFirstRequestMs: BACKGROUND_DEFAULTS.instructionsIndexDelayMs,
    avoid:
      'build the index with `sisu-skills index --instructions` (the default when a source is an s3:// or az:// place), ' +
      'or set rankInstructions: false',
  });
}

/** The skills this run sees, as published by skillsMiddleware; undefined before it ran. */
export function getSkills(ctx: { state: Record<string, unknown>; skills?: unknown }): SkillsState | undefined {
  if (isSkillsState(ctx.skills)) return ctx.skills;
  if (isSkillsState(ctx.state.skills)) return ctx.state.skills;
  return undefined;
}

/**
 * Each skill's folder, with a failed copy logged (where the model reads it, it
 * is the activation's answer), and with `trust`, each file of a copy that is
 * not as signed given its one diagnostic (the file that stopped a copy too).
 */
function localFolderOf(folders: SkillFolders, integrity: ReadIntegrity | undefined): FolderOf {
  return async (skill, log) => {
    try {
      const folder = await folders.folderOf(skill);
      if (integrity) reportUntrusted(integrity, skill, folder.untrusted, log);
      return folder;
    } catch (error) {
      if (integrity && error instanceof CopyError && error.untrusted) reportUntrusted(integrity, skill, [error.untrusted], log);
      const code = (error as { code?: unknown }).code;
      log?.error('[skills] local copy failed', {
        skill: skill.metadata.name,
        ...(typeof code === 'string' ? { code } : {}),
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
}
