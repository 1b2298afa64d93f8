import { describe, expect, it, vi } from 'vitest';
import { createIndexCache, untilAborted } from '../src/index/index-cache.js';
import type { DiscoveryResult } from '../src/base/model.js';
import { createSkillIndex } from '../src/index/skill-index.js';

function result(names: string[]): DiscoveryResult {
  return {
    skills: names.map((name) => ({ metadata: { name, description: name }, instructions: '', path: '', directory: '', resources: [] })),
    scannedDirectories: ['/s'],
    errors: [],
    warnings: [],
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('createIndexCache', () => {
  it('shares one discovery between concurrent first requests', async () => {
    const gate = deferred<DiscoveryResult>();
    const load = vi.fn(() => gate.promise);
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: 1000 });
    const requests = [cache.get(), cache.get(), cache.get()];
    gate.resolve(result(['a']));
    const answers = await Promise.all(requests);
    expect(load).toHaveBeenCalledTimes(1);
    expect(answers.map((a) => a.fresh)).toEqual([true, false, false]);
    expect(new Set(answers.map((a) => a.index)).size).toBe(1);
  });

  it('asks a TTL function on every get, so a shorter TTL applies at once', async () => {
    let clock = 0;
    let ttl = Infinity;
    const load = vi.fn(async () => result(['a']));
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: () => ttl, now: () => clock });
    await cache.get();
    clock = 10_000;
    await cache.get();
    expect(load).toHaveBeenCalledTimes(1);
    ttl = 5_000;
    await cache.get();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('reuses the index within the TTL and rescans after it', async () => {
    let clock = 0;
    const load = vi.fn(async () => result(['a']));
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: 100, now: () => clock });
    const first = await cache.get();
    clock = 99;
    expect((await cache.get()).index).toBe(first.index);
    expect(load).toHaveBeenCalledTimes(1);
    clock = 100;
    const third = await cache.get();
    expect(load).toHaveBeenCalledTimes(2);
    expect(third.index).not.toBe(first.index);
    expect(third.fresh).toBe(true);
  });

  it('rescans on every request with ttl 0 and never with Infinity', async () => {
    const zero = vi.fn(async () => result([]));
    const always = createIndexCache({ load: zero, toIndex: createSkillIndex, ttl: 0 });
    await always.get();
    await always.get();
    expect(zero).toHaveBeenCalledTimes(2);
    let clock = 0;
    const once = vi.fn(async () => result([]));
    const never = createIndexCache({ load: once, toIndex: createSkillIndex, ttl: Infinity, now: () => clock });
    await never.get();
    clock = Number.MAX_SAFE_INTEGER;
    await never.get();
    expect(once).toHaveBeenCalledTimes(1);
  });

  it('reports how long discovery took', async () => {
    let clock = 10;
    const cache = createIndexCache({
      load: async () => {
        clock = 25;
        return result([]);
      },
      toIndex: createSkillIndex,
      ttl: 1000,
      now: () => clock,
    });
    expect((await cache.get()).durationMs).toBe(15);
  });

  it('retries after a failed discovery', async () => {
    const load = vi
      .fn()
      .mockRejectedValueOnce(new Error('disk on fire'))
      .mockResolvedValueOnce(result(['a']));
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: 1000 });
    await expect(cache.get()).rejects.toThrow('disk on fire');
    expect((await cache.get()).index.skills).toHaveLength(1);
  });

  it('an aborted request stops waiting without corrupting the shared scan', async () => {
    const gate = deferred<DiscoveryResult>();
    const load = vi.fn(() => gate.promise);
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: 1000 });
    const controller = new AbortController();
    const aborted = cache.get(controller.signal);
    const patient = cache.get();
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toThrow('user cancelled');
    gate.resolve(result(['a', 'b']));
    expect((await patient).index.skills).toHaveLength(2);
    expect((await cache.get()).index.skills).toHaveLength(2);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('invalidate makes the next request rescan and drops a scan that was in flight', async () => {
    const gate = deferred<DiscoveryResult>();
    const load = vi
      .fn()
      .mockImplementationOnce(() => gate.promise)
      .mockResolvedValue(result(['new']));
    const cache = createIndexCache({ load, toIndex: createSkillIndex, ttl: 1000 });
    const pending = cache.get();
    cache.invalidate();
    gate.resolve(result(['old']));
    expect((await pending).index.skills[0]?.metadata.name).toBe('old');
    expect(cache.peek()).toBeUndefined();
    expect((await cache.get()).index.skills[0]?.metadata.name).toBe('new');
    expect(cache.peek()?.skills[0]?.metadata.name).toBe('new');
  });
});

describe('untilAborted', () => {
  it('passes values and errors through, and rejects at once on an aborted signal', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(untilAborted(Promise.reject(new Error('x')), controller.signal)).rejects.toThrow('x');
    controller.abort(new Error('gone'));
    await expect(untilAborted(new Promise(() => {}), controller.signal)).rejects.toThrow('gone');
    await expect(untilAborted(Promise.resolve(2), undefined)).resolves.toBe(2);
  });
});
