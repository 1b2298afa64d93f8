/**
 * argv -> one command with its arguments. Anything unknown or missing is a
 * SkillsUsageError (exit code 2); no side effects.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SkillsUsageError } from '../errors.js';
import { COMMANDS, type CommandName } from './usage.js';

export type Command =
  | { kind: 'help'; command?: CommandName }
  | { kind: 'version' }
  | { kind: 'list' | 'validate'; directories: string[]; json: boolean; strict: boolean }
  | { kind: 'prompt'; directories: string[]; strict: boolean; budget?: number; query?: string }
  | { kind: 'show'; name: string; directories: string[]; json: boolean };

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

const HELP: OptionSpec = { help: { type: 'boolean', short: 'h' } };
const OPTIONS: Record<CommandName, OptionSpec> = {
  list: { ...HELP, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  validate: { ...HELP, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  prompt: { ...HELP, strict: { type: 'boolean' }, budget: { type: 'string' }, query: { type: 'string' } },
  show: { ...HELP, json: { type: 'boolean' }, dir: { type: 'string', short: 'd', multiple: true } },
};

function isCommand(value: string): value is CommandName {
  return (COMMANDS as readonly string[]).includes(value);
}

/** node:util's parse errors say what is wrong well enough; keep the message, change the class. */
function parse(command: CommandName, args: string[]): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args, options: OPTIONS[command], allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SkillsUsageError(`${command}: ${message.replace(/\. To specify a positional argument.*$/s, '.')}`);
  }
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
  const { values, positionals } = parse(first, rest);
  if (values.help === true) return { kind: 'help', command: first };
  const json = values.json === true;
  if (first === 'show') {
    const directories = Array.isArray(values.dir) ? values.dir.filter((d): d is string => typeof d === 'string') : [];
    if (positionals.length !== 1) throw new SkillsUsageError('show: give exactly one skill name.');
    if (directories.length === 0) throw new SkillsUsageError('show: say where to look with --dir <dir>.');
    return { kind: 'show', name: positionals[0] ?? '', directories, json };
  }
  if (positionals.length === 0) throw new SkillsUsageError(`${first}: give at least one skills folder.`);
  const strict = values.strict === true;
  if (first === 'prompt') {
    const query = typeof values.query === 'string' ? values.query : undefined;
    return { kind: first, directories: positionals, strict, budget: budgetOf(values.budget), query };
  }
  return { kind: first, directories: positionals, json, strict };
}

function budgetOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/^\d+$/.test(value)) throw new SkillsUsageError(`prompt: --budget takes a number of characters, got "${value}".`);
  return Number(value);
}
