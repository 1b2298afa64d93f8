/** Help text of `sisu-skills`, per command and in full. */

export const COMMANDS = ['list', 'validate', 'show', 'prompt', 'index', 'init'] as const;
export type CommandName = (typeof COMMANDS)[number];

const SYNOPSIS: Record<CommandName, string> = {
  list: 'sisu-skills list <dir...> [--package <name>] [--json] [--strict] [--include <pattern>] [--exclude <pattern>]',
  validate: 'sisu-skills validate <dir...> [--package <name>] [--json] [--strict] [--include <pattern>] [--exclude <pattern>]',
  show: 'sisu-skills show <name> <dir...> [--package <name>] [--json] [--include <pattern>] [--exclude <pattern>]',
  prompt:
    'sisu-skills prompt <dir...> [--package <name>] [--budget <chars>] [--query <text>] [--no-find-skills] [--strict] [--include <pattern>] [--exclude <pattern>]',
  index: 'sisu-skills index <dir...> [--package <name>] -o <file> [--instructions] [--strict] [--include <pattern>] [--exclude <pattern>]',
  init: 'sisu-skills init <name> [--dir <folder>] [--description <text>]',
};

const FILTER_HELP = [
  '--package  also load the skills of an npm package, found as Node finds it from the current folder',
  '           (its SKILL.md, or each folder in its skills/); repeatable; searched after the folders',
  '--include  load only skills whose name or folder name matches (`*` and `?` wildcards);',
  '           repeat it or separate patterns with commas',
  '--exclude  never load skills whose name or folder name matches; wins over --include',
];

const DETAILS: Record<CommandName, string[]> = {
  list: [
    'List the skills found in the folders, one per line: name and description.',
    'Exits 1 when skills were left out by errors (listed on stderr), else 0.',
    '--json    print name, description, paths and resources as JSON',
    "--strict  load with the middleware's strict: true",
    ...FILTER_HELP,
  ],
  validate: [
    'Check every SKILL.md and print each problem as `file:line:column severity code message`.',
    'Exits 1 when there are errors, 0 when there are only warnings.',
    '--json    print the result as JSON',
    '--strict  naming and length rules become errors, and warnings fail too',
    ...FILTER_HELP,
  ],
  show: [
    "Print a skill's frontmatter, then exactly what the middleware's use_skill answers with default options.",
    'A middleware given other maxListedResources or maxInstructionChars answers with that many resources or characters instead.',
    'Folders are searched in order; the first one that has the skill wins, as in the middleware.',
    'Exits 1 when the skill is not found or did not load.',
    '--dir, -d  another folder to search (same as giving it after the name)',
    '--json     print the skill as JSON',
    ...FILTER_HELP,
  ],
  prompt: [
    'Print the catalog section the middleware would add to the system prompt, and nothing when it adds none (stderr says why).',
    'Exits 1 when skills were left out by errors (listed on stderr), else 0.',
    "--budget          the catalog budget in characters (default: the middleware's default)",
    '--query           a user message, for the ranked list used when the catalog is over budget',
    "--no-find-skills  as with the middleware's findSkills: false (the section never names find_skills)",
    "--strict          load with the middleware's strict: true",
    ...FILTER_HELP,
  ],
  index: [
    'Write the prebuilt index a middleware with `index: <file>` starts from instead of scanning.',
    'Give the folders, packages, filters and strict the middleware is given: an index built for others is not used.',
    'Prints each problem as validate does, then one line: skills, errors and warnings, and where it wrote.',
    'Replaces <file> at once (a temporary file beside it, then a rename): a reader never sees half of it.',
    'Exits 0 when written, even when skills have errors (they are recorded, and the middleware logs them as a scan would;',
    'run validate to fail a build on them); 1 when a folder or package named cannot be read or found, or <file>',
    'cannot be written (an existing <file> is then left as it was); 2 for wrong usage, such as no -o.',
    'Skills added or changed later are not seen, or not activated, until the index is built again.',
    '-o, --output  the file to write (its folder is created if missing); paths inside are relative to it',
    "--instructions  store the instructions' terms too: ranking reads them from the first request, not after",
    '                reading every SKILL.md in the background (a larger index, about 25% at 2,000 skills)',
    "--strict      build for the middleware's strict: true",
    ...FILTER_HELP,
  ],
  init: [
    'Create a new skill: <folder>/<name>/SKILL.md with a body outline, and an empty references/ folder.',
    "The name is 1-64 lowercase letters, digits and single hyphens; it is also the folder's name.",
    'Never overwrites: exits 1 when <folder>/<name> already exists or cannot be written; 2 for a bad name.',
    '--dir          the folder to create the skill in (created if missing; default: the current folder)',
    '--description  what the skill does and when to use it; without it the description is a placeholder',
    '               that validate warns about (and --strict rejects) until you replace it',
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
    'When two skills share a name, the first folder wins; --package skills come after every folder, in the order given.',
    "Run `sisu-skills <command> --help` for a command's options.",
    'Exit codes: 0 ok; 1 problems found: validate failed, skills left out by errors, a folder unreadable or a package not found, the skill not found, the index could not be written, or init could not create the skill; 2 wrong usage.',
  ].join('\n');
}
