#!/usr/bin/env node
/** The `sisu-skills` binary: real stdout, stderr and exit code around runCli. */
import { runCli } from './cli/run.js';

// `sisu-skills list dir | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  // Progress only where a person watches: CI logs and pipes stay clean.
  ...(process.stderr.isTTY ? { progress: (line: string) => process.stderr.write(`${line}\n`) } : {}),
});
