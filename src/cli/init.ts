/**
 * `sisu-skills init <name>`: a new skill folder, `<dir>/<name>/`, holding a
 * SKILL.md that `validate` accepts and an empty `references/` folder. Never
 * overwrites: the skill folder must not exist, and creating it is the step
 * that checks, so two runs at once cannot both write. Exit 0 when created,
 * 1 when the folder exists or cannot be written; bad arguments are usage
 * errors (exit 2) found by args.ts before this runs.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorCode, errorReason } from '../base/fs.js';
import type { InitArgs } from './args.js';
import { displayPath, EXIT, type CliIO } from './io.js';
import { skillFileText } from './scaffold.js';

export async function initCommand(args: InitArgs, io: CliIO): Promise<number> {
  const parent = resolve(io.cwd, args.dir ?? '.');
  const folder = join(parent, args.name);
  const shown = displayPath(folder, io.cwd);
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    io.err(
      `sisu-skills: init: cannot create the folder ${displayPath(parent, io.cwd)} ` +
        `(${errorReason(error)}). Pass an existing folder you can write to with --dir.`,
    );
    return EXIT.problems;
  }
  try {
    // Not recursive: EEXIST is how an existing skill (or file) is refused.
    await mkdir(folder);
  } catch (error) {
    io.err(
      errorCode(error) === 'EEXIST'
        ? `sisu-skills: init: ${shown} already exists, and init never overwrites. Choose another name, or another parent folder with --dir.`
        : `sisu-skills: init: cannot create ${shown} (${errorReason(error)}). Pass a folder you can write to with --dir.`,
    );
    return EXIT.problems;
  }
  try {
    await writeFile(join(folder, 'SKILL.md'), skillFileText(args.name, args.description), { flag: 'wx' });
    await mkdir(join(folder, 'references'));
  } catch (error) {
    // The folder is ours (created just above): leave nothing half-made behind.
    await rm(folder, { recursive: true, force: true });
    io.err(`sisu-skills: init: cannot write ${shown} (${errorReason(error)}); nothing was created.`);
    return EXIT.problems;
  }
  io.out(`Created ${join(shown, 'SKILL.md')} and an empty ${join(shown, 'references')} folder.`);
  io.out(
    args.description === undefined
      ? `Next: replace the placeholder description in ${join(shown, 'SKILL.md')} (validate ` +
          `warns until you do), fill in the outline, then run \`sisu-skills validate ${shown}\`.`
      : `Next: fill in the outline in ${join(shown, 'SKILL.md')}, then run \`sisu-skills validate --strict ${shown}\`.`,
  );
  return EXIT.ok;
}
