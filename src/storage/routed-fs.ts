/**
 * The one edge the rest of the package reads through: object paths (`s3://`, `az://`) go to
 * the buckets, every other path to the disk. Watching is the disk's alone:
 * buckets are checked by the refresh loop instead.
 */
import { readUntilThroughOpen, type SkillsFileSystem } from '../base/fs.js';
import type { BucketFileSystem } from './bucket-fs.js';
import { isObjectUrl } from '../base/object-url.js';

export function routedFileSystem(disk: SkillsFileSystem, buckets: BucketFileSystem): SkillsFileSystem {
  const routed: SkillsFileSystem = {
    readdir: (path, options) => (isObjectUrl(path) ? buckets.readdir(path) : disk.readdir(path, options)),
    readFile: (path, encoding) => (isObjectUrl(path) ? buckets.readFile(path) : disk.readFile(path, encoding)),
    stat: (path) => (isObjectUrl(path) ? buckets.stat(path) : disk.stat(path)),
    lstat: (path) => (isObjectUrl(path) ? buckets.lstat(path) : disk.lstat(path)),
    realpath: (path) => (isObjectUrl(path) ? buckets.realpath(path) : disk.realpath(path)),
    open: (path, flags) => (isObjectUrl(path) ? buckets.open(path) : disk.open(path, flags)),
    readUntil: (path, end, firstChunk, options) => {
      if (isObjectUrl(path)) return buckets.readUntil(path, end, firstChunk);
      return disk.readUntil ? disk.readUntil(path, end, firstChunk, options) : readUntilThroughOpen(disk, path, end, firstChunk, options);
    },
  };
  if (disk.readlink) routed.readlink = disk.readlink.bind(disk);
  if (disk.watch) routed.watch = disk.watch.bind(disk);
  if (disk.watchFolder) routed.watchFolder = disk.watchFolder.bind(disk);
  return routed;
}
