/**
 * The trigger eval behind `sisu-skills eval`: each case's query goes to a
 * model as the first request of a conversation, through a real
 * `skillsMiddleware` (catalog, tools, pre-activation exactly as in an app),
 * and the run records which skills it triggered: the ones the middleware
 * injected, and the ones the model asked use_skill for. Then the figures of
 * the agentskills.io "optimizing descriptions" method: a trigger rate per
 * case over N runs, a case passing at 0.5, per-skill precision, recall and
 * F1, the confusions, and the same on a seeded train/validation split.
 *
 * The model call is made here, not by SISU's `execute` (the package does not
 * depend on @sisu-ai/core): the request's messages and tools exactly as the
 * middleware left them, with `toolChoice: 'auto'`, as `execute` sends them.
 * A find_skills call is answered by the real tool and the model asked again
 * (at most MAX_SEARCH_ROUNDS times); the first answer that is not a search
 * ends the run. No other tool is run: the eval measures the choice of skill,
 * not the work after it.
 */
import { createLimiter } from '../base/concurrency.js';
import type { HostLogger, HostMessage, HostModel, HostTool } from '../base/host.js';
import { skillsMiddleware } from '../middleware.js';
import type { SkillsOptions } from '../run/options.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import type { SkillsContext } from '../run/context.js';

/** One line of the cases file. */
export interface TriggerCase {
  query: string;
  /** The skill this query should trigger, or null when it should trigger none. */
  expect: string | null;
  /** 1-based line in the cases file, for the report. */
  line: number;
}

/** What the eval needs of a SISU model adapter: `generate(messages, options)` returning `{ message }`. */
export interface EvalModel {
  generate(messages: never, options?: never): unknown;
}

export interface TriggerEvalSettings {
  /** The middleware's options (folders, packages, filters, strict, and any the user adds). */
  skills: SkillsOptions;
  model: EvalModel;
  cases: readonly TriggerCase[];
  /** Runs per case. */
  runs: number;
  concurrency: number;
  /** Longest a run may take, in ms; a run that takes longer is aborted and counted as an error. */
  timeoutMs: number;
  /** Share of cases in the train set, in (0, 1); undefined: no split. */
  split?: number;
  seed: number;
  /** The system prompt the conversation starts with. */
  systemPrompt?: string;
  /** Called after each run with the runs done, the total, and the errors so far. */
  onProgress?(done: number, total: number, errors: number): void;
}

/** A case passes when its trigger rate reaches this (or, for expect null, stays below it). */
export const TRIGGER_THRESHOLD = 0.5;
/** find_skills rounds answered before the run ends. */
const MAX_SEARCH_ROUNDS = 3;
const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.';

export interface CaseResult {
  line: number;
  query: string;
  expect: string | null;
  /** 'train' or 'validation' with a split. */
  set?: 'train' | 'validation';
  /** Runs that completed (errors excluded). */
  runs: number;
  errors: number;
  /** How many completed runs triggered each skill. */
  triggered: Record<string, number>;
  /** Runs that triggered the expected skill (expect null: any skill), over completed runs; null when none completed. */
  rate: number | null;
  /** rate >= 0.5 for a skill, rate < 0.5 for expect null; false when no run completed. */
  pass: boolean;
}

export interface SkillFigures {
  skill: string;
  /** Cases expecting this skill. */
  cases: number;
  /** Share of the completed runs of those cases that triggered it; null without any. */
  triggerRate: number | null;
  /** Per case, at the 0.5 threshold: expected and triggered; expected and not; triggered when another or none was expected. */
  tp: number;
  fn: number;
  fp: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

export interface Totals {
  cases: number;
  passed: number;
  runs: number;
  errors: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

export interface Figures {
  totals: Totals;
  skills: SkillFigures[];
  /** Runs where `expected` (null: none) was asked for and `got` triggered instead or as well. */
  confusions: Array<{ expected: string | null; got: string; runs: number }>;
}

export interface TriggerEvalReport extends Figures {
  runsPerCase: number;
  threshold: number;
  cases: CaseResult[];
  split?: { share: number; seed: number; train: Figures; validation: Figures };
  /** Distinct model errors, commonest first. */
  errorMessages: Array<{ message: string; runs: number }>;
}

/** What one run triggered, or why it failed. */
type RunOutcome = { triggered: string[] } | { error: string };

export async function runTriggerEval(settings: TriggerEvalSettings): Promise<TriggerEvalReport> {
  const middleware = skillsMiddleware(settings.skills);
  try {
    const jobs = settings.cases.flatMap((c, caseIndex) => Array.from({ length: settings.runs }, () => caseIndex));
    const outcomes: RunOutcome[][] = settings.cases.map(() => []);
    let done = 0;
    let errors = 0;
    const limit = createLimiter(settings.concurrency);
    await Promise.all(
      jobs.map((caseIndex) =>
        limit(async () => {
          const item = settings.cases[caseIndex] as TriggerCase;
          const outcome = await runOnce(middleware, settings.model, item.query, {
            systemPrompt: settings.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
            timeoutMs: settings.timeoutMs,
          });
          outcomes[caseIndex]?.push(outcome);
          done++;
          if ('error' in outcome) errors++;
          settings.onProgress?.(done, jobs.length, errors);
        }),
      ),
    );
    const sets = settings.split === undefined ? undefined : splitCases(settings.cases, settings.split, settings.seed);
    const cases = settings.cases.map((c, i) => caseResult(c, outcomes[i] ?? [], sets?.[i]));
    const report: TriggerEvalReport = {
      runsPerCase: settings.runs,
      threshold: TRIGGER_THRESHOLD,
      ...figuresOf(cases),
      cases,
      errorMessages: errorMessages(outcomes.flat()),
    };
    if (settings.split !== undefined) {
      report.split = {
        share: settings.split,
        seed: settings.seed,
        train: figuresOf(cases.filter((c) => c.set === 'train')),
        validation: figuresOf(cases.filter((c) => c.set === 'validation')),
      };
    }
    return report;
  } finally {
    await middleware.close();
  }
}

const quiet: HostLogger = { debug() {}, info() {}, warn() {}, error() {} };

interface ToolCallLike {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
}

/** One first request: the middleware, then the model, then what was triggered. Never throws. */
async function runOnce(
  middleware: ReturnType<typeof skillsMiddleware>,
  model: EvalModel,
  query: string,
  { systemPrompt, timeoutMs }: { systemPrompt: string; timeoutMs: number },
): Promise<RunOutcome> {
  const registry = new Map<string, HostTool>();
  // The adapters pass it to the provider's client: a request that hangs is aborted, and counted as an error.
  const signal = AbortSignal.timeout(timeoutMs);
  const ctx: SkillsContext = {
    input: query,
    messages: [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: query },
    ],
    tools: { get: (name) => registry.get(name), register: (tool) => void registry.set(tool.name, tool) },
    state: {},
    log: quiet,
    model: model as HostModel,
    signal,
  };
  const chosen: string[] = [];
  try {
    await middleware(ctx, async () => {
      const tools = [...registry.values()];
      for (let round = 0; round <= MAX_SEARCH_ROUNDS; round++) {
        const generate = (ctx.model ?? model).generate as unknown as (messages: HostMessage[], options: object) => unknown;
        const reply = (await generate.call(ctx.model ?? model, ctx.messages, { tools, toolChoice: 'auto', signal })) as {
          message?: { content?: unknown; tool_calls?: ToolCallLike[] };
        };
        const calls = Array.isArray(reply?.message?.tool_calls) ? reply.message.tool_calls : [];
        for (const call of calls) {
          if (call.name !== USE_SKILL_TOOL) continue;
          const name = argument(call.arguments, 'skill_name');
          if (name !== undefined) chosen.push(ctx.skills?.get(name.trim())?.metadata.name ?? name.trim());
        }
        const searches = calls.filter((call) => call.name === FIND_SKILLS_TOOL);
        if (chosen.length > 0 || searches.length === 0 || searches.length !== calls.length || round === MAX_SEARCH_ROUNDS) return;
        await answerSearches(ctx, registry, reply.message?.content, searches);
      }
    });
  } catch (error) {
    if (signal.aborted) return { error: `no answer within ${timeoutMs / 1000} s (--timeout)` };
    return { error: error instanceof Error ? error.message : String(error) };
  }
  // What the middleware injected (mentions, `always`, auto-activation), then what the model asked for.
  return { triggered: [...new Set([...(ctx.skills?.activated ?? []), ...chosen])] };
}

/** The assistant's find_skills calls and their answers, appended as SISU's execute appends them. */
async function answerSearches(ctx: SkillsContext, registry: Map<string, HostTool>, content: unknown, calls: ToolCallLike[]): Promise<void> {
  const tool = registry.get(FIND_SKILLS_TOOL);
  const withIds = calls.map((call, i) => ({ ...call, id: typeof call.id === 'string' ? call.id : `eval-search-${i + 1}` }));
  ctx.messages.push({ role: 'assistant', content: typeof content === 'string' ? content : '', tool_calls: withIds } as HostMessage);
  for (const call of withIds) {
    const args = typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as unknown) : call.arguments;
    const schema = tool?.schema as { parse?: (value: unknown) => unknown } | undefined;
    const parsed = typeof schema?.parse === 'function' ? schema.parse(args) : args;
    const result = tool
      ? await tool.handler(parsed as never, { log: ctx.log, ...(ctx.signal ? { signal: ctx.signal } : {}) })
      : `Unknown tool: ${FIND_SKILLS_TOOL}`;
    ctx.messages.push({ role: 'tool', tool_call_id: call.id, name: FIND_SKILLS_TOOL, content: JSON.stringify(result) } as HostMessage);
  }
}

/** A string argument of a tool call whose arguments are an object or a JSON string. */
function argument(args: unknown, key: string): string | undefined {
  let value: unknown = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const field = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}

function caseResult(item: TriggerCase, outcomes: readonly RunOutcome[], set: 'train' | 'validation' | undefined): CaseResult {
  const triggered: Record<string, number> = {};
  let runs = 0;
  let hits = 0;
  for (const outcome of outcomes) {
    if ('error' in outcome) continue;
    runs++;
    for (const name of outcome.triggered) triggered[name] = (triggered[name] ?? 0) + 1;
    const hit = item.expect === null ? outcome.triggered.length > 0 : outcome.triggered.includes(item.expect);
    if (hit) hits++;
  }
  const rate = runs === 0 ? null : hits / runs;
  // Commonest first, then by name: the same report whatever order the runs finished in.
  const ordered = Object.fromEntries(Object.entries(triggered).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)));
  const pass = rate !== null && (item.expect === null ? rate < TRIGGER_THRESHOLD : rate >= TRIGGER_THRESHOLD);
  return {
    line: item.line,
    query: item.query,
    expect: item.expect,
    ...(set === undefined ? {} : { set }),
    runs,
    errors: outcomes.length - runs,
    triggered: ordered,
    rate,
    pass,
  };
}

const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);

/** What one skill's cases add up to, before the ratios: cases that expect it, their runs and hits, and outcomes. */
interface SkillTally {
  cases: number;
  runs: number;
  hits: number;
  tp: number;
  fn: number;
  fp: number;
}

type Confusion = Figures['confusions'][number];

/** Per-skill and total figures of scored cases (a case none of whose runs completed is counted in errors only). */
export function figuresOf(cases: readonly CaseResult[]): Figures {
  const { bySkill, confusions } = tally(cases);
  const skills = [...bySkill.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([skill, f]) => skillFigures(skill, f));
  const tp = sum(skills.map((s) => s.tp));
  const fp = sum(skills.map((s) => s.fp));
  const fn = sum(skills.map((s) => s.fn));
  return {
    totals: {
      cases: cases.length,
      passed: cases.filter((c) => c.pass).length,
      runs: sum(cases.map((c) => c.runs)),
      errors: sum(cases.map((c) => c.errors)),
      tp,
      fp,
      fn,
      ...scores(tp, fp, fn),
    },
    skills,
    confusions: [...confusions.values()].sort(
      (a, b) => b.runs - a.runs || String(a.expected).localeCompare(String(b.expected)) || a.got.localeCompare(b.got),
    ),
  };
}

/**
 * Counts every scored case once: for the skill it expects, its runs, hits and whether it triggered (tp) or not
 * (fn); for every other skill it triggered, a false positive when it did so often enough, and a confusion.
 */
function tally(cases: readonly CaseResult[]): { bySkill: Map<string, SkillTally>; confusions: Map<string, Confusion> } {
  const bySkill = new Map<string, SkillTally>();
  const entry = (name: string): SkillTally => {
    let figures = bySkill.get(name);
    if (figures === undefined) {
      figures = { cases: 0, runs: 0, hits: 0, tp: 0, fn: 0, fp: 0 };
      bySkill.set(name, figures);
    }
    return figures;
  };
  const confusions = new Map<string, Confusion>();
  for (const c of cases) {
    if (c.expect !== null) entry(c.expect).cases++;
    if (c.runs === 0) continue;
    if (c.expect !== null) {
      const own = entry(c.expect);
      own.runs += c.runs;
      own.hits += c.triggered[c.expect] ?? 0;
      if ((c.triggered[c.expect] ?? 0) / c.runs >= TRIGGER_THRESHOLD) own.tp++;
      else own.fn++;
    }
    for (const [name, count] of Object.entries(c.triggered)) {
      if (name === c.expect) continue;
      if (count / c.runs >= TRIGGER_THRESHOLD) entry(name).fp++;
      const key = `${c.expect ?? ''}\u0000${name}`;
      const confusion = confusions.get(key) ?? { expected: c.expect, got: name, runs: 0 };
      confusion.runs += count;
      confusions.set(key, confusion);
    }
  }
  return { bySkill, confusions };
}

function skillFigures(skill: string, f: SkillTally): SkillFigures {
  return { skill, cases: f.cases, triggerRate: ratio(f.hits, f.runs), tp: f.tp, fn: f.fn, fp: f.fp, ...scores(f.tp, f.fp, f.fn) };
}

/** Precision, recall and F1 from true positives, false positives and false negatives (null where undefined). */
function scores(tp: number, fp: number, fn: number): { precision: number | null; recall: number | null; f1: number | null } {
  return { precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn), f1: ratio(2 * tp, 2 * tp + fp + fn) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function errorMessages(outcomes: readonly RunOutcome[]): Array<{ message: string; runs: number }> {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) if ('error' in outcome) counts.set(outcome.error, (counts.get(outcome.error) ?? 0) + 1);
  return [...counts.entries()]
    .map(([message, runs]) => ({ message, runs }))
    .sort((a, b) => b.runs - a.runs || a.message.localeCompare(b.message));
}

/**
 * Each case's set: `share` of the should-trigger cases and `share` of the
 * should-not cases in train (rounded), the rest in validation, so both sets
 * hold both kinds in proportion, as the agentskills.io guide asks. Which
 * cases go where depends only on the cases' order and `seed`.
 */
export function splitCases(cases: readonly TriggerCase[], share: number, seed: number): Array<'train' | 'validation'> {
  const random = mulberry32(seed);
  const sets: Array<'train' | 'validation'> = cases.map(() => 'validation');
  for (const group of [cases.flatMap((c, i) => (c.expect === null ? [] : [i])), cases.flatMap((c, i) => (c.expect === null ? [i] : []))]) {
    for (let i = group.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [group[i], group[j]] = [group[j] as number, group[i] as number];
    }
    const train = Math.round(group.length * share);
    for (const index of group.slice(0, train)) sets[index] = 'train';
  }
  return sets;
}

/** A small seeded generator (mulberry32): the same seed gives the same split on every platform. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
