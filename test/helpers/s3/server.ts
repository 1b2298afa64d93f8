/**
 * A real S3-compatible server for the tests: s3rver in its own child process
 * (it needs `--openssl-legacy-provider`), started once per test worker and
 * shared by every S3 test file that runs in it (vitest runs files with
 * `isolate: false`, so this module's state outlives one file). Each file
 * makes buckets of its own, so files never see each other's objects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerChild } from '../storage/server-child.js';

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
  return startServerChild('s3rver', ['--openssl-legacy-provider', CHILD, directory], {}, () =>
    rmSync(directory, { recursive: true, force: true }),
  );
}
