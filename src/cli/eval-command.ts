import type { EvalArgs } from './args.js';
import { EXIT, type CliIO } from './io.js';

export async function evalCommand(_args: EvalArgs, io: CliIO): Promise<number> {
  io.err('eval: not yet');
  return Promise.resolve(EXIT.problems);
}
