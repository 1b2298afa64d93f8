/** The four commands. Each returns its exit code and writes only through `io`. */
import { basename, dirname } from 'node:path';
import { isModelInvocable } from '../activation.js';
import { oneLine, closestNames } from '../text.js';
import { createUseSkillTool } from '../tools/use-skill.js';
import type { Skill } from '../types.js';
import { catalogSection } from './catalog-section.js';
import { count, displayPath, formatForCli, load, type Loaded } from './load.js';

export interface CliIO {
  /** Write a line (a newline is added) to standard output. */
  out(line: string): void;
  /** Write a line (a newline is added) to standard error. */
  err(line: string): void;
  cwd: string;
}

export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/** Directory errors stop list/show/prompt: their output would silently miss skills. */
function reportUnreadable(loaded: Loaded, io: CliIO): boolean {
  const unreadable = loaded.diagnostics.filter((d) => d.severity === 'error' && loaded.directories.includes(d.file));
  for (const d of unreadable) io.err(formatForCli(d, io.cwd));
  return unreadable.length > 0;
}

/** One stderr line when skills were skipped, so list and prompt never hide it. */
function noteSkipped(loaded: Loaded, io: CliIO, argv: string): void {
  const skipped = loaded.diagnostics.filter((d) => d.severity === 'error').length;
  if (skipped > 0) io.err(`${count(skipped, 'error')} left skills out; run \`sisu-skills validate ${argv}\` for details.`);
}

function shellArgs(directories: readonly string[]): string {
  return directories.map((d) => (/^[\w./~-]+$/.test(d) ? d : JSON.stringify(d))).join(' ');
}

export async function listCommand(directories: string[], options: { json: boolean; strict: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(directories, io.cwd, options.strict);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  if (options.json) {
    io.out(JSON.stringify(loaded.skills.map(describeSkill), null, 2));
  } else if (loaded.skills.length === 0) {
    io.err(`No skills found in ${directories.join(', ')}.`);
  } else {
    const width = Math.max(...loaded.skills.map((s) => s.metadata.name.length));
    for (const skill of loaded.skills) {
      const hidden = isModelInvocable(skill.metadata) ? '' : ' [not in catalog: disable-model-invocation]';
      io.out(`${skill.metadata.name.padEnd(width)}  ${oneLine(skill.metadata.description)}${hidden}`);
    }
  }
  noteSkipped(loaded, io, shellArgs(directories));
  return EXIT.ok;
}

export async function validateCommand(directories: string[], options: { json: boolean; strict: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(directories, io.cwd, options.strict);
  // --strict fails on warnings too: CI wants a clean run, not a passing one.
  const ok = loaded.errors === 0 && !(options.strict && loaded.warnings > 0);
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          ok,
          strict: options.strict,
          directories: loaded.directories,
          counts: { skills: loaded.skills.length, errors: loaded.errors, warnings: loaded.warnings },
          skills: loaded.skills.map((s) => ({ name: s.metadata.name, path: s.path })),
          diagnostics: loaded.diagnostics,
        },
        null,
        2,
      ),
    );
    return ok ? EXIT.ok : EXIT.problems;
  }
  for (const diagnostic of loaded.diagnostics) io.out(formatForCli(diagnostic, io.cwd));
  const where = count(loaded.directories.length, 'directory', 'directories');
  const verdict = ok ? 'OK' : 'FAILED';
  const why = !ok && loaded.errors === 0 ? ' (--strict fails on warnings)' : '';
  io.out(
    `${verdict}: ${count(loaded.skills.length, 'skill')} loaded from ${where}, ${count(loaded.errors, 'error')}, ${count(loaded.warnings, 'warning')}${why}.`,
  );
  return ok ? EXIT.ok : EXIT.problems;
}

export async function showCommand(name: string, directories: string[], options: { json: boolean }, io: CliIO): Promise<number> {
  const loaded = await load(directories, io.cwd, false);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  const skill = loaded.skills.find((s) => s.metadata.name === name);
  if (!skill) {
    io.err(notFound(name, loaded, io.cwd));
    return EXIT.problems;
  }
  // Exactly what the model receives: the public use_skill tool over this one skill.
  const activation = String(await createUseSkillTool([skill]).handler({ skill_name: name }, { state: {} }));
  if (options.json) {
    io.out(JSON.stringify({ ...describeSkill(skill), activation }, null, 2));
    return EXIT.ok;
  }
  const { name: _name, description, ...rest } = skill.metadata;
  io.out(`name: ${skill.metadata.name}`);
  io.out(`description: ${oneLine(description)}`);
  for (const [key, value] of Object.entries(rest)) io.out(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  io.out(`file: ${displayPath(skill.path, io.cwd)}`);
  io.out(
    isModelInvocable(skill.metadata)
      ? 'catalog: listed; the model activates it with use_skill'
      : `catalog: not listed (disable-model-invocation); activate it with @${skill.metadata.name} or the always option`,
  );
  io.out('');
  io.out('What use_skill returns:');
  io.out(activation);
  return EXIT.ok;
}

export async function promptCommand(
  directories: string[],
  options: { strict: boolean; budget?: number; query?: string },
  io: CliIO,
): Promise<number> {
  const loaded = await load(directories, io.cwd, options.strict);
  if (reportUnreadable(loaded, io)) return EXIT.problems;
  const section = catalogSection(loaded.skills, options);
  if (section === undefined) io.err('No skills the model may invoke: the middleware adds no catalog section.');
  else io.out(section);
  noteSkipped(loaded, io, shellArgs(directories));
  return EXIT.ok;
}

function notFound(name: string, loaded: Loaded, cwd: string): string {
  // A folder of that name that failed to load says more than "not found".
  const failed = loaded.diagnostics.find((d) => d.severity === 'error' && basename(dirname(d.file)) === name);
  if (failed) return `Skill "${name}" did not load:\n${formatForCli(failed, cwd)}`;
  const names = loaded.skills.map((s) => s.metadata.name);
  if (names.length === 0) return `Skill "${name}" not found: no skills in ${loaded.directories.map((d) => displayPath(d, cwd)).join(', ')}.`;
  return `Skill "${name}" not found. Closest: ${closestNames(names, name).slice(0, 5).join(', ')}.`;
}

function describeSkill(skill: Skill) {
  return {
    name: skill.metadata.name,
    description: oneLine(skill.metadata.description),
    modelInvocable: isModelInvocable(skill.metadata),
    path: skill.path,
    directory: skill.directory,
    metadata: skill.metadata,
    resources: skill.resources.map(({ path, type, size }) => ({ path, type, size })),
  };
}
