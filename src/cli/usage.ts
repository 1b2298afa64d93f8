/** Help text of `sisu-skills`, per command and in full. */
import { OVERLAP_THRESHOLD } from '../catalog/overlap.js';
import { EVAL_DEFAULTS, SIGN_DEFAULTS } from '../config/defaults.js';

export const COMMANDS = ['list', 'validate', 'show', 'prompt', 'overlap', 'eval', 'index', 'init', 'keygen', 'sign', 'verify'] as const;
export type CommandName = (typeof COMMANDS)[number];

const SYNOPSIS: Record<CommandName, string> = {
  list: 'sisu-skills list <dir...> [--package <name>] [--json] [--strict] [--include <pattern>] [--exclude <pattern>]',
  validate: 'sisu-skills validate <dir...> [--package <name>] [--json] [--strict] [--include <pattern>] [--exclude <pattern>]',
  show: 'sisu-skills show <name> <dir...> [--package <name>] [--json] [--include <pattern>] [--exclude <pattern>]',
  prompt:
    'sisu-skills prompt <dir...> [--package <name>] [--budget <chars>] [--query <text>] ' +
    '[--instructions] [--no-find-skills] [--strict] [--include <pattern>] [--exclude <pattern>]',
  index:
    'sisu-skills index <dir...> [--package <name>] -o <file> [--instructions | --no-instructions] [--embeddings <module>] ' +
    '[--key <private key>...] [--strict] [--include <pattern>] [--exclude <pattern>]',
  init: 'sisu-skills init <name> [--dir <folder>] [--description <text>]',
  keygen: 'sisu-skills keygen <prefix>',
  sign: 'sisu-skills sign <place...> --key <private key file> [--expires <30d|12h|90s>] [--version <n>] [--renew] [--json]',
  verify: 'sisu-skills verify <place...> --key <public key file>... [--threshold <n>] [--json]',
  overlap:
    'sisu-skills overlap <dir...> [--package <name>] [--json] [--threshold <0-1>] [--strict] [--include <pattern>] [--exclude <pattern>]',
  eval:
    'sisu-skills eval <dir...> --cases <file.jsonl> (--model <module> | --offline [--embeddings <module>]) ' +
    '[--runs <n>] [--split <0-1>] [--seed <n>] ' +
    '[--concurrency <n>] [--timeout <s>] [--min-f1 <0-1>] [--json] [--package <name>] [--strict] [--include <pattern>] [--exclude <pattern>]',
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
    '--strict  naming and length rules become errors, fields outside the agentskills.io specification,',
    '          non-string metadata values and allowed-tools lists are warned about, and warnings fail too',
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
    '--instructions    rank --query by the instructions too, as the middleware does once it has read them (a second after its first request)',
    "--no-find-skills  as with the middleware's findSkills: false (the section never names find_skills)",
    "--strict          load with the middleware's strict: true",
    ...FILTER_HELP,
  ],
  index: [
    'Write the prebuilt index a middleware with `index: <file>` starts from instead of scanning. Sources may be s3:// and az:// places.',
    'Give the folders, packages, filters and strict the middleware is given: an index built for others is not used.',
    'Prints each problem as validate does, then one line: skills, errors and warnings, and where it wrote.',
    'Replaces <file> at once (a temporary file beside it, then a rename): a reader never sees half of it.',
    'Exits 0 when written, even when skills have errors (they are recorded, and the middleware logs them as a scan would;',
    'run validate to fail a build on them); 1 when a folder or package named cannot be read or found, or <file>',
    'cannot be written (an existing <file> is then left as it was); 2 for wrong usage, such as no -o.',
    'Skills added or changed later are not seen, or not activated, until the index is built again.',
    '-o, --output  the file to write (its folder is created if missing); paths inside are relative to it;',
    '              or s3://bucket/key, az://container/key: publish it there (one write, credentials from the environment: the AWS',
    "              SDK's for s3://, AZURE_STORAGE_CONNECTION_STRING for az://) for `index: 's3://...'` or `index: 'az://...'`",
    "--instructions     store the instructions' terms too: ranking reads them from the first request, not after every",
    '                   process reads every SKILL.md in the background (a larger index, about 25% at 2,000 skills).',
    '                   The default when a source is an s3:// or az:// place: there each process would GET every SKILL.md',
    '--no-instructions  leave them out (the default for local folders and packages, whose files are cheap to read)',
    '--embeddings  a module whose default export (or export `embeddings`) is an embeddings provider, e.g. openAIEmbeddings()',
    "              (or { provider, model }): store every skill's vector, so the middleware embeds none at start-up",
    "--strict      build for the middleware's strict: true",
    '--key         a private key (repeatable): judge each place against its signed skills.manifest.json as the',
    "              middleware's trust option does (these keys' public halves; what is not signed stays out), carry the",
    '              manifests and seal the index, so a middleware with `trust` starts from it with nothing more to read',
    ...FILTER_HELP,
  ],
  overlap: [
    'List the pairs of skills a model is likely to confuse, from their names and descriptions as the catalog lists them.',
    "Each pair has a score (0-1, the cosine of the two texts over the ranker's words) and the words that make them alike.",
    'Skills with disable-model-invocation are not in the catalog and are left out. Exits 0 (1 when skills were left out by errors).',
    `--threshold  list pairs scoring at least this (default ${OVERLAP_THRESHOLD}, calibrated on hand-labelled pairs of published skills)`,
    '--json       print { threshold, skills, pairs: [{ a, b, score, shared }] }',
    "--strict     load with the middleware's strict: true",
    ...FILTER_HELP,
  ],
  eval: [
    "Run the trigger eval: each case's query goes to the model as a first request through the real skills middleware.",
    'A run triggers skill S when the model calls use_skill with S, or the middleware pre-activates S.',
    'Cases: JSONL, one {"query": "...", "expect": "skill-name"} or {"query": "...", "expect": null} per line.',
    'Prints per skill trigger rate, precision, recall and F1, the confusions (expected A, got B) and the totals.',
    'A model error is counted and reported. Exits 1 below --min-f1 or when every run failed, 2 for wrong usage.',
    '--model        a module whose default export (or export `model`) is a SISU model adapter, e.g. ollamaAdapter({...});',
    '               it may also export `skillsOptions`, more skillsMiddleware options (autoActivate, always, catalogBudget ...)',
    "--offline      no model: the middleware's auto-activation (local ranker) alone decides; one run per case",
    '--embeddings   with --offline: a module exporting an embeddings provider; the report adds each case ranked by words',
    '               and by words + meaning (find_skills, top 1 and top 5), side by side',
    `--runs         runs per case (default ${EVAL_DEFAULTS.runs}); a case passes when its trigger rate is at least 0.5 (or under 0.5 for expect null)`,
    '--split        share of cases in the train set (e.g. 0.6): figures for train and validation, split by --seed',
    `--seed         the split's seed (default ${EVAL_DEFAULTS.seed}): the same seed gives the same split`,
    `--concurrency  requests in flight at once (default ${EVAL_DEFAULTS.concurrency})`,
    `--timeout      seconds one run may take before it is aborted and counted as an error (default ${EVAL_DEFAULTS.timeoutSeconds})`,
    '--min-f1       exit 1 when the total F1 is below this',
    '--json         print the report as JSON (the progress line stays on stderr)',
    '--strict       run the middleware with strict: true',
    ...FILTER_HELP,
  ],
  keygen: [
    'Make an Ed25519 key pair for signing skill libraries: <prefix>.key (private, PKCS#8 PEM, mode 600) and <prefix>.pub',
    "(public, SPKI PEM: what an app's trust.keys holds). Never overwrites: exits 1 if either file exists. Prints the key id.",
    'Keep the .key in your CI secret store; anyone holding it can sign what your apps will serve.',
  ],
  sign: [
    'Write a signed skills.manifest.json at the root of each place: a folder, a package folder, s3://bucket/prefix/ or az://container/prefix/',
    "(one PutObject, credentials from the SDK's environment). It lists every file each skill serves, with its size and",
    "SHA-256, each skill's RFC #358 digest and SKILL.md frontmatter hash, a version, an expiry and the signature.",
    'A new content gets a version one above the manifest it replaces. When the content is unchanged and other keys signed',
    "it, this key's signature is added to theirs (several keys, one version: for trust.threshold).",
    'Exits 1 when a place cannot be read or its manifest cannot be written (what was there is left as it was).',
    '--key      the private key file (from sisu-skills keygen)',
    `--expires  how long the manifest is valid: <n>d, <n>h or <n>s (default ${SIGN_DEFAULTS.expires}; up to ${SIGN_DEFAULTS.maxExpiresDays}d)`,
    '--version  the new version, above the one there (needed when the manifest there cannot be read)',
    '--renew    a new version even when the content is unchanged (pushes the expiry back; other keys must sign again)',
    '--json     print what was written as JSON',
  ],
  verify: [
    'Check each place against its signed manifest with the public keys given: the signatures, the expiry, and every',
    'file of every skill (SKILL.md, its frontmatter, every resource; skills added, removed or renamed). Lists every',
    'mismatch as `file severity code message`. Exits 1 when there is one (a CI gate), 0 when every place verifies.',
    '--key        a public key file to trust; repeat it for several (key rotation)',
    '--threshold  distinct trusted keys that must have signed (default 1)',
    '--json       print the result as JSON',
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
    'Exit codes: 0 ok; 1 problems found: validate failed, skills left out by errors, a folder unreadable or a package not found, the ' +
      'skill not found, the index could not be written, init could not create the skill, or eval fell below --min-f1; 2 wrong usage.',
  ].join('\n');
}
