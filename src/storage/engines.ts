/**
 * The engines of the storage edge by URL scheme, and the stores a set of
 * places reads through: `s3://bucket/key` goes to the S3 engine, `az://container/key`
 * to Azure's. Adding an engine is one file implementing ObjectStore and one
 * line in ENGINES. Each store is made on first use (no SDK is imported
 * before a request), with the request time limit around it.
 */
import type { AzureOption } from '../config/azure-option.js';
import { AzureStore } from './azure-client.js';
import { splitObjectPath, storageScheme } from '../base/object-url.js';
import type { ObjectStore } from './object-store.js';
import { S3Store } from './s3-client.js';
import type { S3Option } from '../config/storage-options.js';
import { StorageCodes, StorageError } from './storage-error.js';
import { REQUEST_TIMEOUT_MS, TimeLimitedStore } from './time-limit.js';

/** How each engine connects: the `s3` and `azure` options. */
export interface StorageConnections {
  s3?: S3Option;
  azure?: AzureOption;
  /** Longest a request may take (see REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

const ENGINES: Readonly<Record<string, (connections: StorageConnections) => ObjectStore>> = {
  's3://': (connections) => new S3Store(connections.s3),
  'az://': (connections) => new AzureStore(connections.azure),
};

/** Where an object path points: the engine's store, the container and the key. */
export interface Located {
  store: ObjectStore;
  container: string;
  key: string;
}

export class ObjectStores {
  private readonly made = new Map<string, ObjectStore>();

  constructor(private readonly connections: StorageConnections = {}) {}

  /** The store of `scheme`'s engine. */
  of(scheme: string): ObjectStore {
    let store = this.made.get(scheme);
    if (!store) {
      const engine = ENGINES[scheme];
      if (!engine) throw new StorageError(StorageCodes.notConfigured, `no storage engine reads ${scheme} paths`);
      store = new TimeLimitedStore(engine(this.connections), this.connections.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
      this.made.set(scheme, store);
    }
    return store;
  }

  /** The store, container and key of `path` (`s3://bucket/key`, `az://container/key`). */
  locate(path: string): Located {
    const { bucket, key } = splitObjectPath(path);
    return { store: this.of(storageScheme(path) ?? ''), container: bucket, key };
  }
}
