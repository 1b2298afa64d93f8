/**
 * The CLI run in-process against storage, with the SDK's environment
 * (AWS_ENDPOINT_URL_S3, AWS_REGION, the credentials; or Azure's connection
 * string) set for the call and put back after it.
 */
import { runCli, type CliIO } from '../../../src/cli/run.js';
import { S3RVER_CREDENTIALS } from './server.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `sisu-skills ...argv` with the SDK's environment pointing at `endpoint`. */
export function cliAgainst(endpoint: string, ...argv: string[]): Promise<CliRun> {
  return cliWithEnvironment(
    {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    ...argv,
  );
}

/** `sisu-skills ...argv` with `env` set in process.env for the call, and put back after it. */
export async function cliWithEnvironment(env: Record<string, string>, ...argv: string[]): Promise<CliRun> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const io: CliIO = { cwd: process.cwd(), out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    const code = await runCli(argv, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
