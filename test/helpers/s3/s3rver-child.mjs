/**
 * s3rver in a process of its own: it needs `--openssl-legacy-provider`, which
 * the test process must not run with. Prints its address as one JSON line,
 * and exits when its parent closes stdin (or dies), removing its directory:
 * a test worker ended by vitest runs no exit handler of its own.
 *
 * Its filesystem store is made to read after write as S3 does (see
 * s3rver-consistency.mjs): unpatched, a GET racing a PUT of the same key can
 * answer the new ETag with the old or an empty body, and a refresh that keeps
 * objects by ETag then waits forever for a change it was told it has.
 */
import { rmSync } from 'node:fs';
import S3rver from 's3rver';
import { makeStoreConsistent } from './s3rver-consistency.mjs';

makeStoreConsistent();
const directory = process.argv[2];
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
server.run().then(
  (address) => process.stdout.write(`${JSON.stringify({ port: address.port })}\n`),
  (error) => {
    process.stderr.write(`s3rver failed to start: ${error?.stack}\n`);
    process.exit(1);
  },
);
const end = () => {
  rmSync(directory, { recursive: true, force: true });
  process.exit(0);
};
process.stdin.on('end', end);
process.stdin.on('error', end);
process.stdin.resume();
