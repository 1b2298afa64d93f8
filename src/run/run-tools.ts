/**
 * The tools of each run, made once per run, owned by it (`run.tools`) and
 * bound to it (SISU hands a tool handler a ToolContext, not the ctx), and
 * registered on the run's ctx without ever replacing someone else's tool of
 * the same name. They rank and search with the library the run sees now.
 */
import type { ActivationGate } from './gate.js';
import type { Library } from './library.js';
import type { PluginRoots } from './plugin-root.js';
import type { ResourceReader } from '../resources/resource-reader.js';
import type { RunTools, SkillsRun } from './run.js';
import { FIND_SKILLS_TOOL } from '../base/tool-names.js';
import { lackedToolsOn } from '../base/required-tools.js';
import { bindFindSkillsTool } from '../tools/find-skills.js';
import { bindReadResourceTool } from '../tools/read-resource.js';
import { bindUseSkillTool, type ActivationTextOptions } from '../tools/use-skill.js';
import type { SkillEvent } from '../base/skill-event.js';
import type { HostLogger, HostTool } from '../base/host.js';
import type { SkillsContext } from './context.js';
import type { MeaningRuntime } from '../meaning/meaning-runtime.js';
import type { Skill } from '../base/model.js';
import type { SkillFolder } from '../base/skill-folder.js';

/**
 * The folder a skill's scripts run from, made now for a bucket skill (its
 * local copy); rejects with why there is none.
 */
export type FolderOf = (skill: Skill, log: HostLogger | undefined) => Promise<SkillFolder>;

export class RunToolbox {
  // Tools made here, for any run: a registry shared between requests may still hold an earlier run's.
  private readonly own = new WeakSet<HostTool>();

  constructor(
    private readonly reader: ResourceReader | undefined,
    private readonly text: ActivationTextOptions,
    private readonly pluginRoots: PluginRoots,
    private readonly gate: ActivationGate,
    private readonly meaning?: MeaningRuntime,
    private readonly folderOf?: FolderOf,
  ) {}

  /** Register the run's tools on `ctx`: use_skill, read_skill_resource when enabled, find_skills when the catalog needs it. */
  register(ctx: SkillsContext, run: SkillsRun): void {
    const { search } = seen(run);
    run.tools ??= this.make(run);
    const { tools } = run;
    this.registerOne(ctx, tools.useSkill);
    if (tools.readResource) this.registerOne(ctx, tools.readResource);
    if (search) this.registerOne(ctx, tools.findSkills);
  }

  private make(run: SkillsRun): RunTools {
    // Model-facing tools see only the skills the model may activate; reads cover every loaded skill.
    // run.index is the part of the index this request may see (visible), so hidden skills are never reached.
    const library = () => seen(run);
    const modelIndex = () => library().modelIndex;
    // The library's rankers: find_skills ranks as the run's catalog does, with the very same ranker.
    const ranker = () => library().searchRanker();
    // With `embeddings`: the text's vector, fetched (under the deadline) before ranking reads it.
    const { meaning } = this;
    const prepare = meaning && ((text: string, log?: HostLogger) => meaning.prepare(library().meaning, text, log));
    const { gate } = this;
    const emit = (event: SkillEvent, log: HostLogger | undefined): void => gate.emit(run, event, log);
    const useSkill = bindUseSkillTool({
      source: modelIndex,
      ranker,
      // In view now, not merely activated once: conversationBuffer may have trimmed the instructions since.
      isActive: (name) => run.inView(name),
      folder: this.folderOf,
      isCurrent: (name, version) => run.isCurrent(name, version),
      shown: (name, version) => run.shown.set(name, version),
      activate: (name, args) => run.activate(name, args),
      // The request's registry when the model calls: every middleware before execute has registered its tools.
      lacking: (entry) => (run.ctx ? lackedToolsOn(run.ctx, entry.metadata) : []),
      pluginRoot: (skill, log) => this.pluginRoots.of(skill, log),
      searchTool: () => (library().search ? FIND_SKILLS_TOOL : undefined),
      text: this.text,
      gate: async (entry, log, args) => {
        const decision = await gate.check(run, entry, 'model', log, args);
        return decision.approved ? undefined : decision.message;
      },
      emit,
    });
    const findSkills = bindFindSkillsTool(modelIndex, ranker, prepare);
    if (prepare) embedUnknownNames(useSkill, (name) => modelIndex().get(name) === undefined, prepare);
    const readResource =
      this.reader &&
      bindReadResourceTool({
        source: () => run.index,
        ranker: () => library().indexRanker(),
        reader: this.reader,
        budget: run.reads,
        emit,
      });
    const tools: RunTools = readResource ? { useSkill, findSkills, readResource } : { useSkill, findSkills };
    for (const tool of Object.values(tools)) this.own.add(tool);
    return tools;
  }

  /** Register `tool` unless this ctx has it; replace an earlier run's copy of ours, never someone else's tool. */
  private registerOne(ctx: SkillsContext, tool: HostTool): void {
    const registered = ctx.tools.get(tool.name);
    if (registered === tool) return;
    if (registered === undefined || this.own.has(registered)) {
      ctx.tools.register(tool);
    } else {
      ctx.log.warn(`[skills] a tool named ${tool.name} is already registered; leaving it in place`, { tool: tool.name });
    }
  }
}

/**
 * use_skill with an unknown name: its vector is fetched before the handler
 * suggests names, so the suggestions fuse meaning too. Known names cost nothing.
 */
function embedUnknownNames(
  tool: HostTool,
  unknown: (name: string) => boolean,
  prepare: (text: string, log?: HostLogger) => Promise<void>,
): void {
  const handle = tool.handler.bind(tool);
  tool.handler = async (args, context) => {
    const name = (args as { skill_name?: unknown } | undefined)?.skill_name;
    if (typeof name === 'string' && unknown(name.trim())) await prepare(name.trim(), context?.log);
    return handle(args, context);
  };
}

/** The library the run sees now: a run sees one (`see`) before its tools are made or called. */
function seen(run: SkillsRun): Library {
  if (!run.library) throw new Error('[skills] internal error: a run registers its tools before it sees a library');
  return run.library;
}
