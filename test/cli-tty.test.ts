/**
 * Progress on a real terminal: the built binary run under a pseudo-terminal
 * (util-linux `script`), so `process.stderr.isTTY` is what a person at a
 * terminal gets. With stderr on the terminal, `index`, `sign` and `verify`
 * print their phases there; stdout (`--json` too) holds only its own lines;
 * with stderr sent to a file, nothing of progress is printed at all.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBuiltBinary, useTempFolder, writeSkill } from './helpers/cli.js';

const run = promisify(execFile);

/**
 * Whether util-linux's `script` (which takes `-qec <command> <file>`; macOS's and BSD's take other
 * arguments) is here and can open a terminal (a container may have no /dev/pts): its command's
 * stderr must be one.
 */
async function terminalScript(): Promise<boolean> {
  try {
    const { stdout } = await run('script', ['-qec', 'test -t 2 && echo on-a-terminal', '/dev/null']);
    return stdout.includes('on-a-terminal');
  } catch {
    return false;
  }
}

const HAS_SCRIPT = await terminalScript();
if (!HAS_SCRIPT) console.log('cli-tty.test.ts skipped: it needs util-linux `script` and a pseudo-terminal to give the binary a terminal');

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const SKILLS = 150;

describe.skipIf(!HAS_SCRIPT)('progress on a terminal (the built binary under a pseudo-terminal)', () => {
  const temp = useTempFolder('mw-skills-cli-tty-');
  const built = useBuiltBinary('mw-skills-cli-tty-');
  let library: string;

  beforeAll(async () => {
    library = join(temp.path, 'library');
    for (let i = 1; i <= SKILLS; i++) await writeSkill(library, `skill-${i}`, `name: skill-${i}\ndescription: Skill ${i}, for progress.`);
  });

  /** Runs `sisu-skills <args> <redirections>` with the terminal as its stdin, stdout and stderr, except what is redirected; what the terminal showed. */
  async function onTerminal(args: string[], redirections: string): Promise<string[]> {
    const command = [process.execPath, built.bin, ...args].map(quote).join(' ');
    const { stdout } = await run('script', ['-qec', `${command} ${redirections}`, '/dev/null'], { cwd: temp.path });
    return stdout.split(/\r?\n/u).filter((line) => line !== '');
  }

  it('index: each phase on the terminal, at each tenth of the skills; stdout, sent to a file, holds only its summary', async () => {
    const index = join(temp.path, 'skills.index');
    const summary = join(temp.path, 'index.out');
    const shown = await onTerminal(['index', library, '-o', index], `> ${quote(summary)}`);
    expect(shown).toEqual([
      'sisu-skills index: finding skills',
      ...Array.from({ length: 11 }, (_, tenth) => `sisu-skills index: checking each SKILL.md, ${tenth * 15} of ${SKILLS}`),
      'sisu-skills index: building the ranker',
      // Named as given on the command line would be, from the folder it ran in.
      'sisu-skills index: writing skills.index',
    ]);
    expect(await readFile(summary, 'utf8')).toBe(`Wrote skills.index: ${SKILLS} skills, 0 errors, 0 warnings.\n`);
  });

  it('sign and verify --json: progress on the terminal, JSON alone on stdout; stderr sent to a file gets no progress', async () => {
    await onTerminal(['keygen', join(temp.path, 'publisher')], '');
    const signed = await onTerminal(
      ['sign', library, '--key', join(temp.path, 'publisher.key'), '--json'],
      `> ${quote(join(temp.path, 'sign.json'))}`,
    );
    expect(signed.length).toBeGreaterThan(2);
    expect(signed.every((line) => line.startsWith('sisu-skills sign: '))).toBe(true);
    expect(JSON.parse(await readFile(join(temp.path, 'sign.json'), 'utf8'))).toBeDefined();

    const verifyArgs = ['verify', library, '--key', join(temp.path, 'publisher.pub'), '--json'];
    const verified = await onTerminal(verifyArgs, `> ${quote(join(temp.path, 'verify.json'))}`);
    expect(verified.length).toBeGreaterThan(2);
    expect(verified.every((line) => line.startsWith('sisu-skills verify: '))).toBe(true);
    const result = await readFile(join(temp.path, 'verify.json'), 'utf8');
    expect(() => JSON.parse(result) as unknown).not.toThrow();

    // stderr to a file (not a terminal), stdout on the terminal: the JSON alone, and nothing in the file.
    const quiet = await onTerminal(verifyArgs, `2> ${quote(join(temp.path, 'verify.err'))}`);
    expect(JSON.parse(quiet.join('\n'))).toEqual(JSON.parse(result));
    expect(await readFile(join(temp.path, 'verify.err'), 'utf8')).toBe('');
  });
});
