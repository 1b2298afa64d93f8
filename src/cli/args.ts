/**
 * argv -> one command with its arguments, and back (shellArgs, for the
 * commands a message suggests). Anything unknown or missing is a
 * SkillsUsageError (exit code 2); no side effects. Every command's argument
 * type is defined here, so the commands import this module and never the
 * reverse.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SkillsUsageError } from '../config/errors.js';
import { packageNameProblem } from '../config/packages.js';
import { isObjectUrl } from '../base/object-url.js';
import { initDescriptionProblem, initNameProblem } from './scaffold.js';
import { EVAL_DEFAULTS } from '../config/defaults.js';
import { COMMANDS, type CommandName } from './usage.js';
import { numberOf } from './arg-values.js';
import { keyFiles, keygenArgs, signArgs, verifyArgs, type KeygenArgs, type SignArgs, type VerifyArgs } from './trust-args.js';

export type { KeygenArgs, SignArgs, VerifyArgs } from './trust-args.js';

/** What every command that loads skills takes besides its folders. */
export interface LoadArgs {
  /** In precedence order (the first folder wins a name clash), as given. */
  directories: string[];
  /** `--package` names, in the order given, duplicates dropped; searched after every folder. */
  packages: string[];
  strict: boolean;
  /** `--include`/`--exclude` patterns: repeatable, and each may hold several separated by commas. */
  include: string[];
  exclude: string[];
}

/** `sisu-skills index`: where to write, besides what every loading command takes. */
export interface IndexArgs extends LoadArgs {
  /** Where to write the index; relative to the working directory. */
  output: string;
  /**
   * Also store the instructions' terms, so ranking reads them from the first request: `--instructions`,
   * `--no-instructions`, or by default when a source is an s3:// or az:// place (instructionsByDefault).
   */
  instructions: boolean;
  /** `--embeddings <module>`: also store the skills' vectors, made by the module's embeddings provider. */
  embeddings?: string;
  /** `--key <private key>` (repeatable): judge the places as `trust` does, and seal the index with these keys. */
  keys: string[];
}

/** `sisu-skills overlap`: besides what every loading command takes. */
export interface OverlapArgs extends LoadArgs {
  json: boolean;
  /** Pairs scoring at least this are listed; undefined: the calibrated default. */
  threshold?: number;
}

/** `sisu-skills eval`: the trigger eval (eval-command.ts). */
export interface EvalArgs extends LoadArgs {
  /** The JSONL file of cases; relative to the working directory. */
  cases: string;
  /** The module exporting the model adapter; relative to the working directory. Absent only with `offline`. */
  model?: string;
  offline: boolean;
  /** Runs per case (1 with --offline, which is deterministic). */
  runs: number;
  /** Share of cases in the train set, in (0, 1); undefined: no split. */
  split?: number;
  seed: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Longest one run may take, in seconds. */
  timeout: number;
  /** Below this total F1 the command exits 1. */
  minF1?: number;
  json: boolean;
  /** `--embeddings <module>` (with --offline): also rank each case by words and by words + meaning, side by side. */
  embeddings?: string;
}

export interface InitArgs {
  /** Already checked by initNameProblem. */
  name: string;
  /** The parent folder; relative to the working directory. Default: the working directory. */
  dir?: string;
  /** Already checked by initDescriptionProblem; undefined writes the placeholder. */
  description?: string;
}

export type Command =
  | { kind: 'help'; command?: CommandName }
  | { kind: 'version' }
  | ({ kind: 'list' | 'validate'; json: boolean } & LoadArgs)
  | ({ kind: 'prompt'; budget?: number; query?: string; findSkills: boolean; rankInstructions: boolean } & LoadArgs)
  | ({ kind: 'show'; name: string; json: boolean } & LoadArgs)
  | ({ kind: 'index' } & IndexArgs)
  | ({ kind: 'overlap' } & OverlapArgs)
  | ({ kind: 'eval' } & EvalArgs)
  | ({ kind: 'init' } & InitArgs)
  | ({ kind: 'keygen' } & KeygenArgs)
  | ({ kind: 'sign' } & SignArgs)
  | ({ kind: 'verify' } & VerifyArgs);

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

const HELP: OptionSpec = { help: { type: 'boolean', short: 'h' } };
const FILTERS: OptionSpec = {
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  package: { type: 'string', multiple: true },
};
const OPTIONS: Record<CommandName, OptionSpec> = {
  list: { ...HELP, ...FILTERS, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  validate: { ...HELP, ...FILTERS, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  prompt: {
    ...HELP,
    ...FILTERS,
    strict: { type: 'boolean' },
    budget: { type: 'string' },
    query: { type: 'string' },
    instructions: { type: 'boolean' },
    'no-find-skills': { type: 'boolean' },
  },
  show: { ...HELP, ...FILTERS, json: { type: 'boolean' }, dir: { type: 'string', short: 'd', multiple: true } },
  // -o is repeatable here only so that giving it twice is reported, not silently resolved.
  index: {
    ...HELP,
    ...FILTERS,
    strict: { type: 'boolean' },
    output: { type: 'string', short: 'o', multiple: true },
    instructions: { type: 'boolean' },
    'no-instructions': { type: 'boolean' },
    embeddings: { type: 'string' },
    key: { type: 'string', multiple: true },
  },
  init: { ...HELP, dir: { type: 'string' }, description: { type: 'string' } },
  keygen: { ...HELP },
  // --key is repeatable for sign only so that giving it twice is reported, not silently resolved.
  sign: {
    ...HELP,
    key: { type: 'string', multiple: true },
    expires: { type: 'string' },
    version: { type: 'string' },
    renew: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  verify: { ...HELP, key: { type: 'string', multiple: true }, threshold: { type: 'string' }, json: { type: 'boolean' } },
  overlap: { ...HELP, ...FILTERS, json: { type: 'boolean' }, strict: { type: 'boolean' }, threshold: { type: 'string' } },
  eval: {
    ...HELP,
    ...FILTERS,
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
    cases: { type: 'string' },
    model: { type: 'string' },
    offline: { type: 'boolean' },
    runs: { type: 'string' },
    split: { type: 'string' },
    seed: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    'min-f1': { type: 'string' },
    embeddings: { type: 'string' },
  },
};

function isCommand(value: string): value is CommandName {
  return (COMMANDS as readonly string[]).includes(value);
}

type Parsed = ReturnType<typeof parseArgs<{ args: string[]; options: OptionSpec; allowPositionals: true; strict: true; tokens: true }>>;

/** node:util's parse errors say what is wrong well enough; keep the message, change the class. */
function parse(command: CommandName, args: string[]): Parsed {
  try {
    return parseArgs({ args, options: OPTIONS[command], allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SkillsUsageError(`${command}: ${message.replace(/\. To specify a positional argument.*$/s, '.')}`);
  }
}

/** Every value of a repeatable option, each split at commas (a skill name never holds one). */
function patterns(value: unknown): string[] {
  const given = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return given
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function parseCommand(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined) throw new SkillsUsageError('no command given.');
  if (first === '--help' || first === '-h') return { kind: 'help' };
  if (first === '--version' || first === '-v' || first === '-V') return { kind: 'version' };
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { kind: 'help' };
    if (!isCommand(topic)) throw new SkillsUsageError(`unknown command "${topic}".`);
    return { kind: 'help', command: topic };
  }
  if (!isCommand(first)) {
    throw new SkillsUsageError(first.startsWith('-') ? `unknown option "${first}".` : `unknown command "${first}".`);
  }
  const { values, positionals, tokens } = parse(first, rest);
  if (values.help === true) return { kind: 'help', command: first };
  if (isOwnCommand(first)) return ownArgs(first, positionals, values);
  const json = values.json === true;
  const loading = {
    include: patterns(values.include),
    exclude: patterns(values.exclude),
    packages: packageNames(first, values.package),
    strict: values.strict === true,
  };
  if (first === 'show')
    return { kind: 'show', name: showName(positionals), json, directories: showDirectories(tokens, loading.packages), ...loading };
  if (positionals.length === 0 && loading.packages.length === 0) {
    throw new SkillsUsageError(`${first}: give at least one skills folder or --package <name>.`);
  }
  if (first === 'prompt') {
    const query = typeof values.query === 'string' ? values.query : undefined;
    return {
      kind: first,
      directories: positionals,
      budget: budgetOf(values.budget),
      query,
      findSkills: values['no-find-skills'] !== true,
      rankInstructions: values.instructions === true,
      ...loading,
    };
  }
  if (first === 'index') {
    return {
      kind: first,
      directories: positionals,
      output: outputOf(values.output),
      instructions: instructionsOf(values, positionals),
      ...embeddingsOf('index', values.embeddings),
      keys: keyFiles(values.key),
      ...loading,
    };
  }
  if (first === 'overlap') {
    const threshold = numberOf('overlap', 'threshold', values.threshold, { min: 0, max: 1 });
    return { kind: first, directories: positionals, json, ...(threshold === undefined ? {} : { threshold }), ...loading };
  }
  if (first === 'eval') return evalArgs(positionals, values, json, loading);
  return { kind: first, directories: positionals, json, ...loading };
}

/** `index`'s --instructions or --no-instructions, else the default for its sources (instructionsByDefault). */
function instructionsOf(values: Parsed['values'], directories: readonly string[]): boolean {
  const given = values.instructions === true;
  const refused = values['no-instructions'] === true;
  if (given && refused) throw new SkillsUsageError('index: --instructions and --no-instructions: give one of them, or neither.');
  return given || (!refused && instructionsByDefault(directories));
}

/**
 * Whether an index over `directories` stores the instructions when neither flag is given: when a source is an
 * s3:// or az:// place. Without them every process that starts from the index GETs every SKILL.md about a second after its
 * first request (one GET per skill: 20,000 per process at 20,000 skills); local files are cheap to read.
 */
export function instructionsByDefault(directories: readonly string[]): boolean {
  return directories.some(isObjectUrl);
}

/** The commands that load no skills, so take none of the loading options. */
type OwnCommand = 'init' | 'keygen' | 'sign' | 'verify';

function isOwnCommand(command: CommandName): command is OwnCommand {
  return command === 'init' || command === 'keygen' || command === 'sign' || command === 'verify';
}

/** The arguments of a command that loads no skills. */
function ownArgs(command: OwnCommand, positionals: string[], values: Parsed['values']): Command {
  switch (command) {
    case 'init':
      return initArgs(positionals, values);
    case 'keygen':
      return keygenArgs(positionals);
    case 'sign':
      return signArgs(positionals, values);
    case 'verify':
      return verifyArgs(positionals, values);
  }
}

/** The skill `show` is asked for: its first positional. */
function showName(positionals: readonly string[]): string {
  const name = positionals[0];
  if (name === undefined) throw new SkillsUsageError('show: give the skill name, then its folders: sisu-skills show <name> <dir...>.');
  return name;
}

/** Every positional after the name and every --dir is a folder, in the order given (the first wins a clash). */
function showDirectories(tokens: Parsed['tokens'], packages: readonly string[]): string[] {
  const directories: string[] = [];
  let named = false;
  for (const token of tokens) {
    if (token.kind === 'positional' && !named) named = true;
    else if (token.kind === 'positional' || (token.kind === 'option' && token.name === 'dir' && token.value !== undefined))
      directories.push(token.value ?? '');
  }
  if (directories.length === 0 && packages.length === 0) {
    throw new SkillsUsageError('show: say where to look: sisu-skills show <name> <dir...> or --package <name>.');
  }
  return directories;
}

/** `--package` values, split at commas (no package name holds one); a name npm would refuse is a usage error. */
function packageNames(command: CommandName, value: unknown): string[] {
  const names = [...new Set(patterns(value))];
  for (const name of names) {
    const problem = packageNameProblem(name);
    if (problem !== undefined)
      throw new SkillsUsageError(`${command}: --package ${JSON.stringify(name)}: ${problem}. Example: --package @sisu-ai/skill-debug.`);
  }
  return names;
}

/** One name, checked here so a bad one is a usage error (exit 2) before anything is written. */
function initArgs(positionals: readonly string[], values: Parsed['values']): Command {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new SkillsUsageError("init: give the new skill's name: sisu-skills init <name>.");
  if (extra.length > 0) {
    throw new SkillsUsageError(
      `init: takes one skill name, got ${positionals.length} ` +
        `(${positionals.map((p) => JSON.stringify(p)).join(' ')}). Put a description in quotes after --description.`,
    );
  }
  const nameProblem = initNameProblem(name);
  if (nameProblem !== undefined) throw new SkillsUsageError(`init: ${nameProblem}`);
  const description = typeof values.description === 'string' ? values.description : undefined;
  const descriptionProblem = description === undefined ? undefined : initDescriptionProblem(description);
  if (descriptionProblem !== undefined) throw new SkillsUsageError(`init: ${descriptionProblem}`);
  const dir = typeof values.dir === 'string' ? values.dir : undefined;
  if (dir !== undefined && dir.trim() === '')
    throw new SkillsUsageError('init: --dir is empty. Give the folder to create the skill in, or leave --dir out for the current folder.');
  return { kind: 'init', name, dir, description };
}

/** The one `-o`/`--output` file. */
function outputOf(value: unknown): string {
  const given = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  const example = 'e.g. sisu-skills index skills -o skills.index';
  if (given.length === 0) throw new SkillsUsageError(`index: say where to write the index with -o <file>, ${example}.`);
  if (given.length > 1)
    throw new SkillsUsageError(`index: -o given ${given.length} times (${given.map((v) => JSON.stringify(v)).join(', ')}); give one file.`);
  const [output = ''] = given;
  if (output.trim() === '') throw new SkillsUsageError(`index: -o is empty. Give the file to write, ${example}.`);
  return output;
}

function evalArgs(positionals: string[], values: Parsed['values'], json: boolean, loading: Omit<LoadArgs, 'directories'>): Command {
  const cases = typeof values.cases === 'string' ? values.cases : undefined;
  if (cases === undefined || cases.trim() === '')
    throw new SkillsUsageError(
      'eval: give the cases with --cases <file.jsonl> (one {"query": "...", "expect": "skill-name" | null} per line).',
    );
  const offline = values.offline === true;
  const model = typeof values.model === 'string' ? values.model : undefined;
  if (offline && model !== undefined) throw new SkillsUsageError('eval: give --model <module> or --offline, not both.');
  if (!offline && (model === undefined || model.trim() === ''))
    throw new SkillsUsageError(
      'eval: give --model <module> (a file whose default export, or export `model`, is a SISU model adapter), or --offline to use the local ranker.',
    );
  const runs = numberOf('eval', 'runs', values.runs, { min: 1, max: 100, integer: true }) ?? EVAL_DEFAULTS.runs;
  const split = numberOf('eval', 'split', values.split, { min: 0, max: 1, exclusive: true });
  const seed = numberOf('eval', 'seed', values.seed, { min: 0, max: 2 ** 31 - 1, integer: true }) ?? EVAL_DEFAULTS.seed;
  const concurrency = numberOf('eval', 'concurrency', values.concurrency, { min: 1, max: 64, integer: true }) ?? EVAL_DEFAULTS.concurrency;
  const timeout = numberOf('eval', 'timeout', values.timeout, { min: 1, max: 3600, integer: true }) ?? EVAL_DEFAULTS.timeoutSeconds;
  const minF1 = numberOf('eval', 'min-f1', values['min-f1'], { min: 0, max: 1 });
  const embeddings = embeddingsOf('eval', values.embeddings);
  if (embeddings.embeddings !== undefined && !offline)
    throw new SkillsUsageError(
      'eval: --embeddings compares rankings offline; give it with --offline (with --model, put `embeddings` in skillsOptions).',
    );
  return {
    kind: 'eval',
    directories: positionals,
    cases,
    ...(model === undefined ? {} : { model }),
    offline,
    runs: offline ? 1 : runs,
    ...(split === undefined ? {} : { split }),
    seed,
    concurrency,
    timeout,
    ...(minF1 === undefined ? {} : { minF1 }),
    json,
    ...embeddings,
    ...loading,
  };
}

/** `--embeddings <module>`, when given: a non-empty path. */
function embeddingsOf(command: 'index' | 'eval', value: unknown): { embeddings?: string } {
  if (value === undefined) return {};
  if (typeof value !== 'string' || value.trim() === '')
    throw new SkillsUsageError(
      `${command}: --embeddings takes a module whose default export (or export \`embeddings\`) is an embeddings provider.`,
    );
  return { embeddings: value };
}

function budgetOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/^\d+$/.test(value)) throw new SkillsUsageError(`prompt: --budget takes a number of characters, got "${value}".`);
  return Number(value);
}

/** The folders and options to repeat in a suggested command, quoted for a shell where needed. */
export function shellArgs(args: LoadArgs): string {
  const words = [
    ...(args.strict ? ['--strict'] : []),
    ...args.include.flatMap((p) => ['--include', p]),
    ...args.exclude.flatMap((p) => ['--exclude', p]),
    ...args.packages.flatMap((p) => ['--package', p]),
    ...args.directories,
  ];
  return words.map(shellWord).join(' ');
}

/** `word` as typed in a shell: as is when safe, else in double quotes. */
function shellWord(word: string): string {
  return /^[\w./~=,@-]+$/.test(word) ? word : JSON.stringify(word);
}
