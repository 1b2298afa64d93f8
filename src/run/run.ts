/**
 * A request's run: the index it sees, what it activated, what it read and
 * what its catalog holds, as one object. The tools registered on a ctx close
 * over its run, because SISU hands a tool handler a `ToolContext`, not the
 * request's ctx. Other middleware sees the run through its published view
 * (`ctx.skills` / `ctx.state.skills`), which is branded so `getSkills` can
 * tell ours from anything else stored under that key, across package copies.
 */
import { parseAllowedTools, type AllowedTool } from '../base/allowed-tools.js';
import { parseRequires } from '../base/required-tools.js';
import type { Verdict } from './approval.js';
import type { CatalogReport } from '../catalog/catalog.js';
import { activationFolder, activationsInView, skillsInView } from './conversation.js';
import { versionFolder } from '../base/skill-folder.js';
import type { HostMessage, HostTool } from '../base/host.js';
import type { SkillIndex } from '../index/skill-index.js';
import type { SkillsContext, SkillsState } from './context.js';
import type { ReadBudget } from '../resources/resource-reader.js';
import type { Library } from './library.js';

/** A run's tools, made on its first request and bound to it (src/run/run-tools.ts). */
export interface RunTools {
  readonly useSkill: HostTool;
  readonly findSkills: HostTool;
  /** With the `resourceTool` option. */
  readonly readResource?: HostTool;
}

// Symbol.for, not Symbol(): an app may load both the ESM and the CJS build.
const RUN = Symbol.for('@sisu-ai/mw-skills/run');

export class SkillsRun {
  /**
   * Names active in this conversation (earlier turns included), least
   * recently activated first; an ended skill leaves the list.
   */
  readonly activated: string[] = [];
  /** Skills other middleware ended: never put back in view, nor recognised again from the messages. */
  readonly ended = new Set<string>();
  /** The arguments each active skill was last activated with, so a skill put back in view carries them again. */
  readonly arguments = new Map<string, string>();
  /** Bytes read_skill_resource returned, per skill, in this run. */
  readonly reads: ReadBudget = new Map();
  /**
   * The version of each skill (skill-folder.ts: its folder and instructions)
   * this run last showed the conversation: a skill whose version differs now
   * changed since, and the conversation is told its new instructions and folder.
   */
  readonly shown = new Map<string, string>();
  /** What the catalog in this run's system prompt holds; undefined before it was rendered. */
  catalog: CatalogReport | undefined;
  /**
   * `approve`'s decision per skill, asked once per conversation (pending ones
   * included, so two calls in one round ask once).
   */
  readonly approvals = new Map<string, Promise<Verdict>>();
  /** The ctx of the request running now: what `approve` and `onEvent` are given from inside a tool. */
  ctx: SkillsContext | undefined;
  /** What other middleware reads; the same object for the whole run. */
  readonly view: SkillsState;
  /**
   * The library of the part of the index this request sees (its `index` is
   * the run's): what the run's tools rank and search with. Set by `see`.
   */
  library: Library | undefined;
  /** The run's tools: made once, on its first request, and registered on each request's ctx. */
  tools: RunTools | undefined;

  /**
   * @param owner the middleware instance that started the run: a rerun by the
   *   same instance continues it, another instance starts its own.
   * @param index the part of the index the run sees (only its visible skills, when
   *   `visible` is set); each request sets it again, and a rebuild moves it to the new index.
   */
  constructor(
    readonly owner: object,
    public index: SkillIndex,
  ) {
    this.view = viewOf(this);
  }

  /** From this request on, the run sees `library`'s part of the index (a rebuild moves it to the new index). */
  see(library: Library): void {
    this.library = library;
    this.index = library.index;
  }

  // Read at call time: conversationBuffer replaces ctx.messages with a new array on every request.
  private conversation: () => readonly HostMessage[] = () => [];

  /** Follow `ctx.messages` of the ctx the run serves (the array as it is whenever asked). */
  follow(ctx: { readonly messages: readonly HostMessage[] }): void {
    this.conversation = () => ctx.messages;
  }

  /** Whether the skill's instructions are in the messages the model will be sent, as they stand now. */
  inView(name: string): boolean {
    return skillsInView(this.conversation()).has(name);
  }

  /**
   * Whether `version` (skill-folder.ts) of `name` is what the conversation was
   * last shown: this run's record, else (a conversation it did not show the
   * skill to: one resumed from saved messages) whether the folder its latest
   * activation in the messages names is the folder now. Nothing to compare with: yes.
   */
  isCurrent(name: string, version: string): boolean {
    const shown = this.shown.get(name);
    if (shown !== undefined) return shown === version;
    const text = activationsInView(this.conversation()).get(name);
    const folder = text === undefined ? undefined : activationFolder(text);
    return folder === undefined || folder === versionFolder(version);
  }

  /**
   * Record an activation (the latest one counts as the most recent, and
   * undoes an earlier end); false when the skill was already active.
   */
  activate(name: string, args?: string): boolean {
    this.ended.delete(name);
    if (args === undefined) this.arguments.delete(name);
    else this.arguments.set(name, args);
    const at = this.activated.indexOf(name);
    if (at >= 0) this.activated.splice(at, 1);
    this.activated.push(name);
    return at < 0;
  }

  /**
   * An activation found in the conversation, with the arguments of its latest
   * activation there: remembered unless ended. One the run already holds keeps
   * its place and arguments (the run saw it activated; the messages may have
   * lost that since).
   */
  recall(name: string, args?: string): void {
    if (this.ended.has(name) || this.activated.includes(name)) return;
    this.activated.push(name);
    if (args !== undefined) this.arguments.set(name, args);
  }

  /** End a skill: it is no longer active, and never put back in view until activated again. */
  end(name: string): boolean {
    const at = this.activated.indexOf(name);
    if (at < 0) return false;
    this.activated.splice(at, 1);
    this.arguments.delete(name);
    this.shown.delete(name);
    this.ended.add(name);
    return true;
  }
}

function viewOf(run: SkillsRun): SkillsState {
  const view = {
    get skills() {
      return run.index.skills;
    },
    get: (name: string) => run.index.get(name),
    load: (name: string) => run.index.load(name),
    loadDetailed: (name: string) => run.index.loadDetailed(name),
    get errors() {
      return run.index.errors;
    },
    get warnings() {
      return run.index.warnings;
    },
    get scannedDirectories() {
      return run.index.scannedDirectories;
    },
    get loadedAt() {
      return run.index.loadedAt;
    },
    get activated(): readonly string[] {
      // A skill activated on an earlier turn that `visible` now hides is not shown either.
      const { activated, index } = run;
      return activated.every((name) => index.get(name) !== undefined)
        ? activated
        : activated.filter((name) => index.get(name) !== undefined);
    },
    inView: (name: string) => run.inView(name),
    // A hidden skill cannot be ended, as one never installed cannot.
    end: (name: string) => run.index.get(name) !== undefined && run.end(name),
    get catalog() {
      return run.catalog;
    },
    get allowedTools() {
      return allowedToolsOf(run);
    },
    get requires() {
      return requiresOf(run);
    },
  };
  Object.defineProperty(view, RUN, { value: run, enumerable: false });
  return Object.freeze(view);
}

/** Each active skill's parsed `allowed-tools`, for those that declare it, in activation order. */
function allowedToolsOf(run: SkillsRun): ReadonlyMap<string, readonly AllowedTool[]> {
  const lists = new Map<string, readonly AllowedTool[]>();
  for (const name of run.activated) {
    const declared = run.index.get(name)?.metadata['allowed-tools'];
    if (declared !== undefined) lists.set(name, Object.freeze(parseAllowedTools(declared).map((tool) => Object.freeze(tool))));
  }
  return lists;
}

/** Each active skill's `requires`, as tool names, for those that declare it, in activation order. */
function requiresOf(run: SkillsRun): ReadonlyMap<string, readonly string[]> {
  const lists = new Map<string, readonly string[]>();
  for (const name of run.activated) {
    const declared = run.index.get(name)?.metadata.requires;
    if (declared !== undefined) lists.set(name, Object.freeze(parseRequires(declared)));
  }
  return lists;
}

/** The run behind a published view, when `value` is one made by this copy of the package. */
export function runOf(value: unknown): SkillsRun | undefined {
  const run = brandOf(value);
  return run instanceof SkillsRun ? run : undefined;
}

/** Whether `value` is a run view published by this package (either build: no instanceof). */
export function isSkillsState(value: unknown): value is SkillsState {
  const run = brandOf(value);
  return typeof run === 'object' && run !== null && (run as { view?: unknown }).view === value;
}

function brandOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { [RUN]?: unknown })[RUN] : undefined;
}
