/**
 * S3 is strongly consistent: a GET, HEAD or listing after a PUT or DELETE
 * sees it, and a GET's body always matches its ETag. s3rver 3.7's filesystem
 * store is not. Its PUT truncates the object file in place and answers before
 * the bytes are on disk, then writes the MD5 (the ETag) in a file of its own;
 * its GET stats, reads the MD5 and opens the object in three steps. A GET
 * racing a PUT of the same key was seen answering the new ETag with an empty
 * body, and an empty ETag. (The probe: one writer replacing a 20 kB object
 * 300 times, three readers checking MD5(body) against the ETag.)
 *
 * Here a PUT writes the whole body to a file beside the object and renames
 * it into place (a GET that already opened the old file reads the old bytes
 * to the end), and every store call on one key (PUT's rename and MD5, GET and
 * HEAD up to opening the file, the metadata a listing reads, DELETE) runs
 * alone for that key, in the order called.
 *
 * A range on an empty object: S3 answers 416 InvalidRange (no byte is in
 * range). s3rver 3.7 answers 206 with Content-Length 1 and never sends the
 * byte, so the GET waits until it times out; here it answers 416.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';

/** The keys the current async call chain holds (getObject calls getMetadata on the key it holds). */
const holding = new AsyncLocalStorage();
/** Per key, the end of the last call queued on it. */
const queues = new Map();

function alone(bucket, key, work) {
  const id = `${bucket}/${key}`;
  const held = holding.getStore() ?? new Set();
  if (held.has(id)) return work();
  const run = (queues.get(id) ?? Promise.resolve()).then(() => holding.run(new Set([...held, id]), work));
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(id, settled);
  void settled.then(() => queues.get(id) === settled && queues.delete(id));
  return run;
}

let uploads = 0;

async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  const upload = `${objectPath}.${process.pid}-${++uploads}.upload`;
  const md5 = createHash('md5');
  let size = 0;
  const counted = new Transform({
    transform(chunk, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const body = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  return alone(object.bucket, object.key, async () => {
    await mkdir(dirname(objectPath), { recursive: true });
    try {
      await pipeline(body, counted, createWriteStream(upload));
      const digest = md5.digest('hex');
      await rename(upload, objectPath);
      await this.putMetadata(object.bucket, object.key, object.metadata, digest);
      return { size, md5: digest };
    } finally {
      await rm(upload, { force: true });
    }
  });
}

/** Patch FilesystemStore (once per process) before an S3rver is made. */
export function makeStoreConsistent() {
  const store = FilesystemStore.prototype;
  if (store.putObject === putObject) return;
  for (const name of ['getObject', 'getMetadata', 'existsObject', 'deleteObject']) {
    const original = store[name];
    store[name] = function (bucket, key, ...rest) {
      return alone(bucket, key, () => original.call(this, bucket, key, ...rest));
    };
  }
  store.putObject = putObject;
  const getObject = store.getObject;
  store.getObject = function (bucket, key, options) {
    if (options?.start === undefined) return getObject.call(this, bucket, key, options);
    return alone(bucket, key, async () => {
      const metadata = await this.getMetadata(bucket, key).catch(() => undefined);
      // Asked from byte 1 of an empty object, s3rver answers 416 as S3 does; from byte 0 it promises one byte and never sends it.
      const empty = metadata !== undefined && Number(metadata['content-length']) === 0;
      return getObject.call(this, bucket, key, empty ? { ...options, start: 1 } : options);
    });
  };
}
