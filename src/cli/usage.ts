/** Help text of `sisu-skills`, per command and in full. */

export const COMMANDS = ['list', 'validate', 'show', 'prompt'] as const;
export type CommandName = (typeof COMMANDS)[number];

const SYNOPSIS: Record<CommandName, string> = {
  list: 'sisu-skills list <dir...> [--json] [--strict]',
  validate: 'sisu-skills validate <dir...> [--json] [--strict]',
  show: 'sisu-skills show <name> --dir <dir> [--dir <dir>...] [--json]',
  prompt: 'sisu-skills prompt <dir...> [--budget <chars>] [--query <text>] [--strict]',
};

const DETAILS: Record<CommandName, string[]> = {
  list: ['List the skills found in the folders, one per line: name and description.', '--json    print name, description, paths and resources as JSON', '--strict  load with the middleware\'s strict: true'],
  validate: [
    'Check every SKILL.md and print each problem as `file:line:column code message`.',
    'Exits 1 when there are errors, 0 when there are only warnings.',
    '--json    print the result as JSON',
    '--strict  naming and length rules become errors, and warnings fail too',
  ],
  show: [
    'Print a skill\'s frontmatter and exactly what use_skill returns to the model for it.',
    '--dir, -d  folder to search; repeat for several, in precedence order',
    '--json     print the skill as JSON',
  ],
  prompt: [
    'Print the catalog section the middleware would add to the system prompt.',
    '--budget  the catalog budget in characters (default: the middleware\'s default)',
    '--query   a user message, for the ranked list used when the catalog is over budget',
    '--strict  load with the middleware\'s strict: true',
  ],
};

/** The help of one command. */
export function commandUsage(command: CommandName): string {
  return [`Usage: ${SYNOPSIS[command]}`, '', ...DETAILS[command].map((line) => `  ${line}`)].join('\n');
}

/** The full help. */
export function usage(): string {
  return [
    'sisu-skills: check and inspect Agent Skills folders (SKILL.md) for @sisu-ai/mw-skills.',
    '',
    'Usage:',
    ...COMMANDS.map((command) => `  ${SYNOPSIS[command]}`),
    '  sisu-skills --help | --version',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.padEnd(9)} ${DETAILS[command][0] ?? ''}`),
    '',
    'Folders are read like the middleware reads `directories`; relative paths start at the current directory.',
    'Run `sisu-skills <command> --help` for a command\'s options.',
    'Exit codes: 0 ok, 1 problems found (or skill not found), 2 wrong usage.',
  ].join('\n');
}
