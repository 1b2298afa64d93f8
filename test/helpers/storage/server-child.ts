/**
 * A storage server for the tests in a child process of its own (s3rver,
 * Azurite): started with `args`, it prints its port as one JSON line; the
 * child and its pipes never keep the test worker alive, it is ended when the
 * worker exits (and ends itself when its stdin closes), and a child that dies
 * later is reported on the worker's stderr, not silently.
 */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ServerAddress {
  /** http://127.0.0.1:port */
  endpoint: string;
  port: number;
}

/** `name`: how messages call it; `cleanup`: run when the worker exits, after the child is ended. */
export function startServerChild(
  name: string,
  args: string[],
  options: SpawnOptions = {},
  cleanup: () => void = () => undefined,
): Promise<ServerAddress> {
  const child = spawn(process.execPath, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  process.once('exit', () => {
    child.kill();
    cleanup();
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
    child.once('exit', (code, signal) => {
      reject(new Error(`${name} exited (${code}) before it listened: ${err}`));
      if (code !== 0 && signal === null) process.stderr.write(`${name} child exited with ${code}\n`);
    });
  });
}
