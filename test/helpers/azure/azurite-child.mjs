/**
 * Azurite's blob service in a process of its own, in memory, listening on
 * 127.0.0.1 at a port the system picks: prints its port as one JSON line, and
 * exits when its parent closes stdin (or dies). A test worker ended by vitest
 * runs no exit handler of its own.
 *
 * Flags: --disableTelemetry (Azurite reports usage by default);
 * --skipApiVersionCheck (Azurite 3.35.0 refuses the API version @azure/storage-blob
 * 12.32.0 sends, 2026-04-06, with 400 InvalidHeaderValue); a 256 MB cap on what
 * it keeps in memory (by default half of the machine's).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const flags = ['--blobHost', '127.0.0.1', '--blobPort', '0', '--inMemoryPersistence', '--extentMemoryLimit', '256'];
process.argv = [process.argv[0], 'azurite-blob', ...flags, '--disableTelemetry', '--skipApiVersionCheck', '--silent'];

// Azurite says where it listens on stdout; only that line, as JSON, reaches the parent.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const port = /successfully listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(String(chunk))?.[1];
  return port === undefined ? true : write(`${JSON.stringify({ port: Number(port) })}\n`, ...rest);
};
require('azurite/dist/src/blob/main.js');

const end = () => process.exit(0);
process.stdin.on('end', end);
process.stdin.on('error', end);
process.stdin.resume();
