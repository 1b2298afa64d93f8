/**
 * The four commands that load skills (init is in init.ts). Each returns its
 * exit code and writes only through `io`. Exit codes: 0 when the output
 * covers every skill in the folders and packages; 1 when something is
 * missing from it (a folder that cannot be read, a `--package` not installed
 * or holding no skill, a skill left out by an error, the skill `show` was
 * asked for) or, for `validate`, when the check fails; 2 for wrong usage
 * (in run.ts).
 */
import { basename, dirname } from 'node:path';
import { isModelInvocable, isUserInvocable } from '../metadata/invocation.js';
import { argumentHint } from '../base/arguments.js';
import { packageOrigin } from '../config/packages.js';
import { closestNames, oneLine } from '../base/text.js';
import { DEFAULTS } from '../config/defaults.js';
import { READ_RESOURCE_TOOL } from '../base/tool-names.js';
import { renderActivation } from '../tools/use-skill.js';
import type { Skill } from '../base/model.js';
import { shellArgs, type LoadArgs } from './args.js';
import { catalogSection } from './catalog-section.js';
import { count, displayPath, EXIT, formatForCli, type CliIO } from './io.js';
import { formatOrigin, load, originOf, type Loaded, type Origin } from './load.js';
import { overlapDiagnostics, overlapsOf } from './overlap-command.js';

/** Directory errors stop list/show/prompt: their output would silently miss skills. */
function reportUnreadable(loaded: Loaded, io: CliIO): boolean {
  for (const d of loaded.unreadable) io.err(formatForCli(d, io.cwd));
  return loaded.unreadable.length > 0;
}

/**
 * One stderr line when skills were left out, so list and prompt never hide
 * it; their output is then incomplete, which their exit code says (1).
 */
function noteSkipped(loaded: Loaded, io: CliIO, args: LoadArgs): number {
  const skipped = loaded.diagnostics.filter((d) => d.severity === 'error').length;
  if (skipped === 0) return EXIT.ok;
  io.err(`${count(skipped, 'error')} left skills out; run \`sisu-skills validate ${shellArgs(args)}\` for details.`);
  return EXIT.problems;
}

export async function listCommand(args: LoadArgs & { json: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(args, io.cwd);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  if (args.json) {
    io.out(
      JSON.stringify(
        loaded.skills.map((skill) => describeSkill(skill, loaded)),
        null,
        2,
      ),
    );
  } else if (loaded.skills.length === 0) {
    io.err(`No skills found in ${sourceList(args)}.`);
  } else {
    // Name, where it came from, description: the description last, since it is the one long column.
    const rows = loaded.skills.map((skill) => ({ skill, from: formatOrigin(originOf(skill, loaded), io.cwd) }));
    const nameWidth = Math.max(...rows.map((row) => row.skill.metadata.name.length));
    const fromWidth = Math.max(...rows.map((row) => row.from.length));
    for (const { skill, from } of rows) {
      const hidden = isModelInvocable(skill.metadata) ? '' : ' [not in catalog: disable-model-invocation]';
      const hint = argumentHint(skill.metadata);
      const usage = hint === undefined ? '' : ` [arguments: ${hint}]`;
      io.out(
        `${skill.metadata.name.padEnd(nameWidth)}  ${from.padEnd(fromWidth)}  ${oneLine(skill.metadata.description)}${usage}${hidden}`,
      );
    }
  }
  return noteSkipped(loaded, io, args);
}

export async function validateCommand(args: LoadArgs & { json: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(args, io.cwd);
  // --strict fails on warnings too: CI wants a clean run, not a passing one.
  const ok = loaded.errors === 0 && !(args.strict && loaded.warnings > 0);
  // Advice about the library, not a fault in a file: listed and counted, but it never fails a run, strict or not.
  const overlaps = overlapDiagnostics(loaded.skills, overlapsOf(loaded.skills));
  const diagnostics = [...loaded.diagnostics, ...overlaps];
  const warnings = loaded.warnings + overlaps.length;
  if (args.json) {
    io.out(
      JSON.stringify(
        {
          ok,
          strict: args.strict,
          directories: loaded.directories,
          packages: loaded.packages.map(({ name, version, directory, kind }) => ({ name, version, directory, kind })),
          counts: { skills: loaded.skills.length, errors: loaded.errors, warnings },
          skills: loaded.skills.map((s) => ({ name: s.metadata.name, path: s.path, origin: originOf(s, loaded) })),
          diagnostics,
        },
        null,
        2,
      ),
    );
    return ok ? EXIT.ok : EXIT.problems;
  }
  for (const diagnostic of diagnostics) io.out(formatForCli(diagnostic, io.cwd));
  for (const line of sourceCounts(loaded, io.cwd)) io.out(line);
  // "from 2 directories", "from 1 package", "from 1 directory and 2 packages".
  const where = [
    ...(loaded.directories.length > 0 || loaded.packages.length === 0
      ? [count(loaded.directories.length, 'directory', 'directories')]
      : []),
    ...(loaded.packages.length > 0 ? [count(loaded.packages.length, 'package')] : []),
  ].join(' and ');
  const verdict = ok ? 'OK' : 'FAILED';
  const why = !ok && loaded.errors === 0 ? ' (--strict fails on warnings)' : '';
  io.out(
    `${verdict}: ${count(loaded.skills.length, 'skill')} loaded from ${where}, ${count(loaded.errors, 'error')}, ${count(warnings, 'warning')}${why}.`,
  );
  return ok ? EXIT.ok : EXIT.problems;
}

/** The line after which `show` prints use_skill's answer, to the end of its output. */
const SHOW_ACTIVATION_HEADER = 'What use_skill returns:';

export async function showCommand(args: LoadArgs & { name: string; json: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(args, io.cwd);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  // Looked up the way use_skill looks a name up.
  const name = args.name.trim();
  const skill = loaded.skills.find((s) => s.metadata.name === name);
  if (!skill) {
    io.err(notFound(name, loaded, io.cwd));
    return EXIT.problems;
  }
  // use_skill's own rendering with the middleware's default options, so this is exactly what the model gets.
  const activation = renderActivation(skill, {
    max: DEFAULTS.maxListedResources,
    maxInstructionChars: DEFAULTS.maxInstructionChars,
    readTool: READ_RESOURCE_TOOL,
  });
  if (args.json) {
    io.out(JSON.stringify({ ...describeSkill(skill, loaded), activation }, null, 2));
    return EXIT.ok;
  }
  const { name: _name, description, ...rest } = skill.metadata;
  io.out(`name: ${skill.metadata.name}`);
  io.out(`description: ${oneLine(description)}`);
  for (const [key, value] of Object.entries(rest)) io.out(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  io.out(`file: ${displayPath(skill.path, io.cwd)}`);
  io.out(`from: ${describeOrigin(originOf(skill, loaded), io.cwd)}`);
  io.out(
    isModelInvocable(skill.metadata)
      ? 'catalog: listed; the model activates it with use_skill'
      : `catalog: not listed (disable-model-invocation); activate it with @${skill.metadata.name} or the always option`,
  );
  const hint = argumentHint(skill.metadata);
  if (hint !== undefined) io.out(`arguments: ${hint} (@${skill.metadata.name} <arguments>, or use_skill's "arguments")`);
  if (!isUserInvocable(skill.metadata))
    io.out(`@${skill.metadata.name}: ignored (user-invocable: false); the model activates it with use_skill`);
  io.out('');
  io.out(SHOW_ACTIVATION_HEADER);
  io.out(activation);
  return EXIT.ok;
}

export async function promptCommand(
  args: LoadArgs & { budget?: number; query?: string; findSkills: boolean; rankInstructions?: boolean },
  io: CliIO,
): Promise<number> {
  const loaded = await load(args, io.cwd);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  const section = catalogSection(loaded.skills, args);
  const { report } = section;
  // stdout is exactly what the middleware injects (nothing when it injects nothing); stderr says why.
  if (loaded.skills.length === 0) {
    io.err(`No skills found in ${sourceList(args)}: the middleware adds no catalog section.`);
  } else if (section.candidates === 0) {
    io.err('No skills the model may invoke (all have disable-model-invocation): the middleware adds no catalog section.');
  } else if (section.text === '') {
    io.err(
      `A budget of ${report.budget} characters cannot hold even the smallest catalog section: the middleware adds none, and ` +
        `the model is not told about the ${count(section.candidates, 'skill')}. Raise --budget (the middleware's catalogBudget).`,
    );
  } else {
    io.out(section.text);
    if (report.mode !== 'full') io.err(overBudget(section.candidates, report));
  }
  return noteSkipped(loaded, io, args);
}

/** What the budget cut, in the terms of the middleware's "catalog over budget" log. */
function overBudget(total: number, report: ReturnType<typeof catalogSection>['report']): string {
  const parts = [`${report.included.length} of ${total} skills listed`];
  if (report.mode === 'names') parts.push('names only');
  if (report.shortened.length > 0) parts.push(`${count(report.shortened.length, 'description')} shortened`);
  if (report.ranked.length > 0) parts.push(`${report.ranked.length} first as most relevant to --query`);
  return `Catalog over budget (${report.length} of ${report.budget} characters, mode ${report.mode}): ${parts.join(', ')}.`;
}

function notFound(name: string, loaded: Loaded, cwd: string): string {
  // A folder of that name that failed to load says more than "not found".
  const failed = loaded.diagnostics.find((d) => d.severity === 'error' && basename(dirname(d.file)) === name);
  if (failed) return `Skill "${name}" did not load:\n${formatForCli(failed, cwd)}`;
  const names = loaded.skills.map((s) => s.metadata.name);
  if (names.length === 0) {
    const sources = [...loaded.directories.map((d) => displayPath(d, cwd)), ...loaded.packages.map(packageOrigin)];
    return `Skill "${name}" not found: no skills in ${sources.join(', ')}.`;
  }
  return `Skill "${name}" not found. Closest: ${closestNames(names, name).slice(0, 5).join(', ')}.`;
}

/** The folders and packages of a command, as given, for "No skills found in ...". */
function sourceList(args: LoadArgs): string {
  return [...args.directories, ...args.packages.map((name) => `package ${name}`)].join(', ');
}

/** One line per folder and package given: how many skills came from it, and for a package, from where on disk. */
function sourceCounts(loaded: Loaded, cwd: string): string[] {
  const tally = new Map<string, number>();
  for (const skill of loaded.skills) {
    const key = describeOrigin(originOf(skill, loaded), cwd);
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  const sources = [
    ...loaded.directories.map((directory): Origin => ({ kind: 'folder', directory })),
    ...loaded.packages.map((pkg): Origin => ({ kind: 'package', name: pkg.name, version: pkg.version, directory: pkg.directory })),
  ];
  return sources.map((origin) => {
    const key = describeOrigin(origin, cwd);
    // Indented: editors read the other lines as `file:line:column` problems, and must skip these.
    return `  ${key}: ${count(tally.get(key) ?? 0, 'skill')}`;
  });
}

/** `folder skills/`, or `package @sisu-ai/skill-debug@1.0.0 (node_modules/@sisu-ai/skill-debug)`. */
function describeOrigin(origin: Origin | undefined, cwd: string): string {
  if (origin === undefined) return 'unknown';
  const shown = formatOrigin(origin, cwd);
  return origin.kind === 'folder' ? `folder ${shown}` : `package ${shown} (${displayPath(origin.directory, cwd)})`;
}

function describeSkill(skill: Skill, loaded: Loaded) {
  return {
    name: skill.metadata.name,
    description: oneLine(skill.metadata.description),
    modelInvocable: isModelInvocable(skill.metadata),
    userInvocable: isUserInvocable(skill.metadata),
    argumentHint: argumentHint(skill.metadata) ?? null,
    path: skill.path,
    directory: skill.directory,
    origin: originOf(skill, loaded),
    metadata: skill.metadata,
    resources: skill.resources.map(({ path, type, size }) => ({ path, type, size })),
  };
}
