/**
 * A real Azure Blob Storage for the tests: Azurite's blob service in its own
 * child process, in memory, started once per test worker and shared by every
 * Azure test file that runs in it (as test/helpers/s3/server.ts does with
 * s3rver). Each file makes containers of its own.
 */
import { fileURLToPath } from 'node:url';
import { startServerChild } from '../storage/server-child.js';

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
  return startServerChild('Azurite', [CHILD], { cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
}
