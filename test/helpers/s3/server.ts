/**
 * A real S3-compatible server for the tests: s3rver in its own child process
 * (it needs `--openssl-legacy-provider`), started once per test worker and
 * shared by every S3 test file that runs in it (vitest runs files with
 * `isolate: false`, so this module's state outlives one file). Each file
 * makes buckets of its own, so files never see each other's objects.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface S3rver {
  /** http://127.0.0.1:port */
  endpoint: string;
  port: number;
}

const CHILD = fileURLToPath(new URL('./s3rver-child.mjs', import.meta.url));
/** s3rver's own credentials: it checks signatures made with them. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let shared: Promise<S3rver> | undefined;

/** The worker's s3rver, started on first use. */
export function sharedS3rver(): Promise<S3rver> {
  shared ??= startS3rver();
  return shared;
}

function startS3rver(): Promise<S3rver> {
  const directory = mkdtempSync(join(tmpdir(), 'skills-s3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', CHILD, directory], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  // Neither the child nor its pipes keep the worker alive; closing stdin on exit ends the child.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  process.once('exit', () => {
    child.kill();
    rmSync(directory, { recursive: true, force: true });
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        const { port } = JSON.parse(line) as { port: number };
        resolve({ endpoint: `http://127.0.0.1:${port}`, port });
      }
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before it listened: ${err}`)));
    watchChild(child);
  });
}

/** A child that dies later is reported on the worker's stderr, not silently. */
function watchChild(child: ChildProcess): void {
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`s3rver child exited with ${code}\n`);
  });
}
