/**
 * One watch on one folder, through whichever form the fs has: the callback
 * form (`watchFolder`, preferred, lighter) or the async iterable (`watch`,
 * as node:fs/promises gives it). Either way the caller gets a handle to close,
 * events through `onEvent`, and a later failure through `onError`; a folder
 * that cannot be watched at all rejects the open.
 */
import type { FolderWatchHandle, SkillsFileSystem } from '../base/fs.js';

export type OnFolderEvent = (eventType: string, filename: string | null) => void;

type WatchEvent = { eventType: string; filename: string | null };
type IterableWatch = NonNullable<SkillsFileSystem['watch']>;

export function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One turn of the event loop: lets a watch that fails at once say so, and other work run during a long walk. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Watch one folder through either form; rejects when it cannot be watched at all. */
export async function openFolderWatch(
  fs: SkillsFileSystem,
  path: string,
  onEvent: OnFolderEvent,
  onError: (error: unknown) => void,
): Promise<FolderWatchHandle> {
  if (typeof fs.watchFolder === 'function') return fs.watchFolder(path, onEvent, onError);
  if (typeof fs.watch !== 'function') throw codedError('ENOSYS', 'the fs has no watch()');
  return iterableWatch(fs.watch.bind(fs), path, onEvent, onError);
}

async function iterableWatch(
  watch: IterableWatch,
  path: string,
  onEvent: OnFolderEvent,
  onError: (error: unknown) => void,
): Promise<FolderWatchHandle> {
  const controller = new AbortController();
  const iterator = watch(path, { recursive: false, signal: controller.signal })[Symbol.asyncIterator]();
  // Node starts the watch on the first next(); a folder it cannot watch rejects it at once.
  const first = iterator.next();
  const early = await Promise.race([
    first.then(
      () => undefined,
      (error: unknown) => ({ error }),
    ),
    nextTurn(),
  ]);
  if (early !== undefined) {
    controller.abort();
    throw early.error;
  }
  void pump(iterator, first, controller.signal, onEvent).catch((error: unknown) => {
    // Aborted by close(): not a failure.
    if (!controller.signal.aborted) onError(error);
  });
  return { close: () => controller.abort() };
}

/** Hand each event on until the watch is closed; rejects when the watch fails or ends by itself. */
async function pump(
  iterator: AsyncIterator<WatchEvent>,
  first: Promise<IteratorResult<WatchEvent>>,
  signal: AbortSignal,
  onEvent: OnFolderEvent,
): Promise<void> {
  for (let next = first; ; next = iterator.next()) {
    const result = await next;
    if (signal.aborted) return;
    if (result.done) throw codedError('WATCH_ENDED', 'the watch ended');
    onEvent(result.value.eventType, result.value.filename);
  }
}
