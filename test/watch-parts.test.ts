/**
 * The watcher's parts on their own, where the public API can only show them
 * indirectly: the listing plan (which entries a visit adopts, resolves or
 * drops) and the walk queue (concurrency cap, waiting for idle, containment).
 */
import { describe, expect, it } from 'vitest';
import type { DirEntry } from '../src/base/fs.js';
import { goneEntries, planListing } from '../src/watch/listing.js';
import { entryReach, FolderTree, rootReach, type Folder } from '../src/watch/tree.js';
import { WalkQueue } from '../src/watch/walk-queue.js';

const dir = (name: string): DirEntry => ({ name, isFile: () => false, isDirectory: () => true, isSymbolicLink: () => false });
const link = (name: string): DirEntry => ({ name, isFile: () => false, isDirectory: () => false, isSymbolicLink: () => true });
const file = (name: string): DirEntry => ({ name, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false });

/** /s holding `kept` (a real sub-folder) and `linked` (a link to /elsewhere). */
function heldFolder(): Folder {
  const tree = new FolderTree(['/s'], { dropped: () => {}, orphaned: () => {} });
  const [root] = tree.roots;
  if (!root) throw new Error('one root');
  const folder = tree.add(rootReach(root, '/s'));
  if (!folder) throw new Error('the root folder');
  tree.add(entryReach(folder, 'kept', undefined));
  tree.add(entryReach(folder, 'linked', { realPath: '/elsewhere' }));
  return folder;
}

describe('planListing', () => {
  it('adopts only new real sub-folders, skips dot-folders and node_modules, and ignores files', () => {
    const folder = heldFolder();
    const plan = planListing(folder, [dir('kept'), dir('new'), dir('.git'), dir('node_modules'), file('SKILL.md')], 'all');
    expect(plan.folders).toEqual(['new']);
    expect([...plan.present].sort()).toEqual(['kept', 'new']);
  });

  it('re-adopts a name that was a link and is now a real folder', () => {
    expect(planListing(heldFolder(), [dir('linked')], 'all').folders).toEqual(['linked']);
  });

  it('resolves a known link again only when the visit was asked about it; a new link always', () => {
    const folder = heldFolder();
    expect(planListing(folder, [link('linked'), link('fresh')], new Set(['other'])).links).toEqual(['fresh']);
    expect(planListing(folder, [link('linked')], new Set(['linked'])).links).toEqual(['linked']);
    expect(planListing(folder, [link('linked')], 'all').links).toEqual(['linked']);
  });

  it('names what the folder holds that the listing no longer has', () => {
    const folder = heldFolder();
    expect(goneEntries(folder, planListing(folder, [dir('kept')], 'all'))).toEqual(['linked']);
  });
});

describe('WalkQueue', () => {
  it('runs at most `concurrency` items at once, in order, and idle() waits for items queued meanwhile', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const queue: WalkQueue<number> = new WalkQueue({
      concurrency: 2,
      run: async (item) => {
        running++;
        most = Math.max(most, running);
        order.push(item);
        await new Promise<void>((resolve) => setImmediate(resolve));
        // An item that queues more: idle() must wait for it too.
        if (item === 0) queue.push(9);
        running--;
      },
      settled: () => {},
      report: (error) => {
        throw error;
      },
    });
    for (let i = 0; i < 5; i++) queue.push(i);
    expect(queue.busy).toBe(true);
    await queue.idle();
    expect(order).toEqual([0, 1, 2, 3, 4, 9]);
    expect(most).toBe(2);
    expect(queue.busy).toBe(false);
  });

  it('reports what an item throws, keeps going, and calls settled once per time it goes idle', async () => {
    const reported: unknown[] = [];
    let settled = 0;
    const queue = new WalkQueue<string>({
      concurrency: 1,
      run: async (item) => {
        if (item === 'bad') throw new Error('boom');
      },
      settled: () => void settled++,
      report: (error) => void reported.push(error),
    });
    queue.push('bad');
    queue.push('good');
    await queue.idle();
    expect(reported.map((e) => (e as Error).message)).toEqual(['boom']);
    expect(settled).toBe(1);
    // A step counted outside the queue holds idle() until it ends.
    queue.begin();
    let idle = false;
    const waiting = queue.idle().then(() => (idle = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    queue.end();
    await waiting;
    expect(settled).toBe(2);
  });
});
