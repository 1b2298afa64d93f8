/**
 * A real Azure Blob Storage for the tests: Azurite's blob service in its own
 * child process, in memory, started once per test worker and shared by every
 * Azure test file that runs in it (as test/helpers/s3/server.ts does with
 * s3rver). Each file makes containers of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Azurite {
  /** http://127.0.0.1:port */
  endpoint: string;
  port: number;
}

const CHILD = fileURLToPath(new URL('./azurite-child.mjs', import.meta.url));

/** Azurite's well-known development account: it checks signatures made with this key. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** The connection string for Azurite reached at `endpoint` (itself, or a proxy in front of it). */
export function azuriteConnectionString(endpoint: string): string {
  return `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint}/${AZURITE_ACCOUNT};`;
}

let shared: Promise<Azurite> | undefined;

/** The worker's Azurite, started on first use. */
export function sharedAzurite(): Promise<Azurite> {
  shared ??= startAzurite();
  return shared;
}

function startAzurite(): Promise<Azurite> {
  // cwd: the package root, so `azurite` resolves from its node_modules; in memory, it writes nothing there.
  const child = spawn(process.execPath, [CHILD], {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  // Neither the child nor its pipes keep the worker alive; closing stdin on exit ends the child.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  process.once('exit', () => child.kill());
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
    child.once('exit', (code) => reject(new Error(`Azurite exited (${code}) before it listened: ${err}`)));
    watchChild(child);
  });
}

/** A child that dies later is reported on the worker's stderr, not silently. */
function watchChild(child: ChildProcess): void {
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`Azurite child exited with ${code}\n`);
  });
}
