/**
 * `sisu-skills eval <dir...> --cases cases.jsonl --model <module>`: the
 * trigger eval (trigger-eval.ts) from the command line. Reads the cases,
 * imports the user's model module (its default export or `model`, a SISU
 * model adapter; optionally `skillsOptions`, more middleware options), checks
 * every expected name against the skills the folders hold, runs the eval with
 * a progress line on stderr, and prints the report (docs/eval-report.md).
 *
 * Exit codes: 0 done; 1 below --min-f1, when every run failed, or when the
 * cases, the model module or the folders cannot be used; 2 wrong usage.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isModelInvocable } from '../metadata/invocation.js';
import type { SkillsOptions } from '../run/options.js';
import { closestNames } from '../base/text.js';
import { runTriggerEval, type EvalModel, type Figures, type TriggerCase, type TriggerEvalReport } from './trigger-eval.js';
import type { EvalArgs } from './args.js';
import { count, EXIT, formatForCli, type CliIO } from './io.js';
import { load } from './load.js';
import { importEmbeddings } from './embeddings-module.js';
import { compareRanking, formatRanking, type RankingComparison } from './eval-ranking.js';

/** What the command prints with --json: the report, and how it was run. */
export interface EvalOutput extends TriggerEvalReport {
  mode: 'model' | 'offline';
  model?: string;
  skillsInCatalog: number;
  minF1?: number;
  ok: boolean;
  /** With --embeddings: the cases ranked by words and by words + meaning. */
  ranking?: RankingComparison;
}

export async function evalCommand(args: EvalArgs, io: CliIO): Promise<number> {
  const cases = await readCases(resolve(io.cwd, args.cases), args.cases, io);
  if (cases === undefined) return EXIT.problems;
  const loaded = await loadForCases(args, io, cases);
  if (loaded === undefined) return EXIT.problems;
  const module = args.offline ? undefined : await importModel(resolve(io.cwd, args.model ?? ''), args.model ?? '', io);
  if (module === null) return EXIT.problems;
  const embeddings = args.embeddings === undefined ? undefined : await importEmbeddings('eval', args.embeddings, io);
  if (embeddings === null) return EXIT.problems;
  const report = await runEval(args, io, cases, module);
  const ranking = embeddings ? await compareRanking(loaded.skills, cases, embeddings) : undefined;
  const f1 = report.totals.f1;
  const allFailed = report.totals.runs === 0 && report.totals.errors > 0;
  const belowMin = args.minF1 !== undefined && (f1 === null || f1 < args.minF1);
  const output: EvalOutput = {
    mode: args.offline ? 'offline' : 'model',
    ...(args.model === undefined ? {} : { model: args.model }),
    skillsInCatalog: loaded.skills.filter((s) => isModelInvocable(s.metadata)).length,
    ...(args.minF1 === undefined ? {} : { minF1: args.minF1 }),
    ok: !allFailed && !belowMin,
    ...report,
    ...(ranking ? { ranking } : {}),
  };
  if (args.json) io.out(JSON.stringify(output, null, 2));
  else for (const line of formatReport(output)) io.out(line);
  // Nothing at all triggered: more often the wiring than the descriptions.
  const nothing = report.totals.runs > 0 && report.totals.tp + report.totals.fp === 0 && report.cases.some((c) => c.expect !== null);
  if (nothing && !args.offline)
    io.err(
      'eval: no run triggered any skill. If the model did call use_skill, its adapter dropped the call: ' +
        "SISU's ollamaAdapter keeps only tool calls that carry an id, and some Ollama servers send none. Check one query by hand.",
    );
  if (allFailed) io.err('eval: every run failed: the model could not be reached or rejected every request (see the errors above).');
  if (belowMin) io.err(`eval: F1 ${fixed(f1)} is below --min-f1 ${args.minF1}.`);
  return output.ok ? EXIT.ok : EXIT.problems;
}

/** The skills the folders hold, or undefined after printing why they cannot be used (unreadable, or a case expects an unknown skill). */
async function loadForCases(
  args: EvalArgs,
  io: CliIO,
  cases: readonly TriggerCase[],
): Promise<Awaited<ReturnType<typeof load>> | undefined> {
  const loaded = await load(args, io.cwd);
  for (const d of loaded.unreadable) io.err(formatForCli(d, io.cwd));
  if (loaded.unreadable.length > 0) return undefined;
  if (loaded.errors > 0) io.err(`${count(loaded.errors, 'error')} left skills out; run \`sisu-skills validate\` for details.`);
  const names = loaded.skills.map((s) => s.metadata.name);
  const unknown = cases.filter((c) => c.expect !== null && !names.includes(c.expect));
  for (const c of unknown) {
    const near = closestNames(names, c.expect ?? '').slice(0, 3);
    io.err(
      `${args.cases}:${c.line}: expect ${JSON.stringify(c.expect)} is not a skill in these folders${near.length > 0 ? ` (closest: ${near.join(', ')})` : ''}.`,
    );
  }
  return unknown.length > 0 ? undefined : loaded;
}

/** The trigger eval through the middleware, with a progress line on stderr per tenth of the runs. */
function runEval(args: EvalArgs, io: CliIO, cases: TriggerCase[], module: ModelModule | undefined): Promise<TriggerEvalReport> {
  const skills: SkillsOptions = {
    ...module?.skillsOptions,
    directories: args.directories,
    packages: args.packages,
    include: args.include,
    exclude: args.exclude,
    strict: args.strict,
    cwd: io.cwd,
    // Offline (no module), the local ranker alone decides: auto-activation at its defaults.
    ...(args.offline ? { autoActivate: true } : {}),
  };
  let lastShown = -1;
  return runTriggerEval({
    skills,
    model: module?.model ?? NO_MODEL,
    cases,
    runs: args.runs,
    concurrency: args.concurrency,
    timeoutMs: args.timeout * 1000,
    ...(args.split === undefined ? {} : { split: args.split }),
    seed: args.seed,
    onProgress(done, total, errors) {
      // A line per tenth (and the last): stderr stays readable in CI logs.
      const step = Math.floor((done * 10) / total);
      if (step === lastShown && done !== total) return;
      lastShown = step;
      io.err(`eval: ${done}/${total} runs, ${count(errors, 'error')}`);
    },
  });
}

/** Offline: the model never calls a tool, so only what the middleware pre-activates counts. */
const NO_MODEL: EvalModel = {
  generate: () => Promise.resolve({ message: { role: 'assistant', content: '' } }),
};

/** The cases, or undefined after printing every bad line. */
async function readCases(path: string, shown: string, io: CliIO): Promise<TriggerCase[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    io.err(`eval: cannot read the cases file ${shown}: ${error instanceof Error ? error.message : String(error)}.`);
    return undefined;
  }
  const cases: TriggerCase[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push(
        `${shown}:${line}: not JSON. Each line is one {"query": "...", "expect": "skill-name"} or {"query": "...", "expect": null}.`,
      );
      return;
    }
    const record = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const { query, expect } = record;
    if (typeof query !== 'string' || query.trim() === '') problems.push(`${shown}:${line}: "query" must be a non-empty string.`);
    else if (expect !== null && (typeof expect !== 'string' || expect.trim() === ''))
      problems.push(`${shown}:${line}: "expect" must be a skill name, or null when the query should trigger no skill.`);
    else cases.push({ query, expect: expect === null ? null : expect.trim(), line });
  });
  for (const problem of problems) io.err(problem);
  if (problems.length > 0) return undefined;
  if (cases.length === 0) {
    io.err(`eval: ${shown} holds no cases. Write one {"query": "...", "expect": "skill-name" | null} per line.`);
    return undefined;
  }
  return cases;
}

interface ModelModule {
  model: EvalModel;
  skillsOptions?: Partial<SkillsOptions>;
}

/** The module's model (default export or `model`; a function is called once to make it), or null after saying why. */
async function importModel(path: string, shown: string, io: CliIO): Promise<ModelModule | null> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    io.err(`eval: cannot import --model ${shown}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  let candidate: unknown = module.model ?? module.default;
  if (typeof candidate === 'function' && !hasGenerate(candidate)) candidate = await (candidate as () => unknown)();
  if (!hasGenerate(candidate)) {
    io.err(
      `eval: --model ${shown} exports no model adapter. Export one as the default export or as \`model\`, ` +
        "e.g. `export default ollamaAdapter({ model: 'llama3.1' })`: an object with generate(messages, options).",
    );
    return null;
  }
  const options = module.skillsOptions;
  return {
    model: candidate,
    ...(options !== null && typeof options === 'object' ? { skillsOptions: options as Partial<SkillsOptions> } : {}),
  };
}

function hasGenerate(value: unknown): value is EvalModel {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { generate?: unknown }).generate === 'function'
  );
}

function fixed(value: number | null): string {
  return value === null ? '-' : value.toFixed(2);
}

/** The text report: a table per skill, the confusions, the failed cases, the totals (and the split). */
export function formatReport(report: EvalOutput): string[] {
  const by = report.mode === 'offline' ? 'the local ranker (--offline)' : `model ${report.model ?? '?'}`;
  const lines = [
    `Trigger eval: ${count(report.cases.length, 'case')} x ${count(report.runsPerCase, 'run')} through skillsMiddleware, ${by}; ` +
      `${count(report.skillsInCatalog, 'skill')} in the catalog.`,
    '',
    ...skillTable(report),
    '',
  ];
  if (report.confusions.length > 0) {
    lines.push('Confusions (expected -> got: runs):');
    for (const c of report.confusions) lines.push(`  ${c.expected ?? '(none)'} -> ${c.got}: ${c.runs}`);
    lines.push('');
  }
  const failed = report.cases.filter((c) => !c.pass);
  if (failed.length > 0) {
    lines.push('Failed cases:');
    for (const c of failed) {
      const got = Object.entries(c.triggered)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ');
      const rate = c.rate === null ? 'no run completed' : `rate ${c.rate.toFixed(2)}`;
      lines.push(
        `  line ${c.line}: expect ${c.expect ?? '(none)'}, ${rate}${got === '' ? '' : `, got ${got}`}` +
          `${c.errors > 0 ? `, ${count(c.errors, 'error')}` : ''}: ${JSON.stringify(c.query)}`,
      );
    }
    lines.push('');
  }
  for (const e of report.errorMessages) lines.push(`Model error (${count(e.runs, 'run')}): ${e.message}`);
  if (report.errorMessages.length > 0) lines.push('');
  lines.push(`Total: ${totalsLine(report)}`);
  if (report.ranking) lines.push('', ...formatRanking(report.ranking));
  if (report.split) {
    lines.push(`Train (${Math.round(report.split.share * 100)}%, seed ${report.split.seed}): ${totalsLine(report.split.train)}`);
    lines.push(`Validation: ${totalsLine(report.split.validation)}`);
  }
  return lines;
}

function totalsLine(figures: Figures): string {
  const t = figures.totals;
  return (
    `${t.passed}/${t.cases} cases passed; precision ${fixed(t.precision)}, recall ${fixed(t.recall)}, F1 ${fixed(t.f1)}; ` +
    `${count(t.runs, 'run')}, ${count(t.errors, 'error')}.`
  );
}

function skillTable(report: EvalOutput): string[] {
  const width = Math.max(5, ...report.skills.map((s) => s.skill.length));
  const header = `${'skill'.padEnd(width)}  cases  trigger rate  precision  recall    F1`;
  const rows = report.skills.map(
    (s) =>
      `${s.skill.padEnd(width)}  ${String(s.cases).padStart(5)}  ${fixed(s.triggerRate).padStart(12)}  ` +
      `${fixed(s.precision).padStart(9)}  ${fixed(s.recall).padStart(6)}  ${fixed(s.f1).padStart(4)}`,
  );
  return [header, ...rows];
}
