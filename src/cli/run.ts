/**
 * runCli(argv, io): parse, run one command, map every failure to an exit
 * code. Never throws and never calls process.exit, so tests run it in-process.
 */
import { SkillsConfigError, SkillsUsageError } from '../config/errors.js';
import { version } from '../../package.json';
import { parseCommand } from './args.js';
import { listCommand, promptCommand, showCommand, validateCommand } from './commands.js';
import { indexCommand } from './index-command.js';
import { evalCommand } from './eval-command.js';
import { initCommand } from './init.js';
import { overlapCommand } from './overlap-command.js';
import { keygenCommand } from './keygen-command.js';
import { signCommand } from './sign-command.js';
import { verifyCommand } from './verify-command.js';
import { EXIT, type CliIO } from './io.js';
import { COMMANDS, commandUsage, usage, type CommandName } from './usage.js';

export type { CliIO } from './io.js';

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const command = parseCommand(argv);
    switch (command.kind) {
      case 'help':
        io.out(command.command ? commandUsage(command.command) : usage());
        return EXIT.ok;
      case 'version':
        io.out(version);
        return EXIT.ok;
      case 'list':
        return await listCommand(command, io);
      case 'validate':
        return await validateCommand(command, io);
      case 'prompt':
        return await promptCommand(command, io);
      case 'show':
        return await showCommand(command, io);
      case 'index':
        return await indexCommand(command, io);
      case 'init':
        return await initCommand(command, io);
      case 'overlap':
        return await overlapCommand(command, io);
      case 'eval':
        return await evalCommand(command, io);
      case 'keygen':
        return await keygenCommand(command, io);
      case 'sign':
        return await signCommand(command, io);
      case 'verify':
        return await verifyCommand(command, io);
    }
  } catch (error) {
    // A bad folder argument reaches discovery's option check: still the caller's usage.
    if (error instanceof SkillsUsageError || error instanceof SkillsConfigError) {
      io.err(`sisu-skills: ${error.message}`);
      const command = COMMANDS.find((name: CommandName) => name === argv[0]);
      io.err(command ? commandUsage(command) : usage());
      return EXIT.usage;
    }
    io.err(`sisu-skills: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.problems;
  }
}
