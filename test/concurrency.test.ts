/**
 * The limiter's wait queue: first in, first out, and a bounded number of
 * moves per take however long the queue grows (Array.shift moved the whole
 * queue on every take: quadratic at 20,000 queued reads). Counts work, never
 * time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter, WaitQueue } from '../src/base/concurrency.js';

describe('WaitQueue', () => {
  it('gives items back in the order they came, whatever the mix of pushes and takes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant<'take'>('take'), fc.integer()), { maxLength: 3000 }), (steps) => {
        const queue = new WaitQueue<number>();
        const reference: number[] = [];
        for (const step of steps) {
          if (step === 'take') expect(queue.take()).toBe(reference.shift());
          else {
            queue.push(step);
            reference.push(step);
          }
          expect(queue.length).toBe(reference.length);
        }
      }),
    );
  });

  it('moves each item at most once on average, however long the queue', () => {
    for (const size of [2_000, 20_000, 200_000]) {
      const queue = new WaitQueue<number>();
      for (let i = 0; i < size; i++) queue.push(i);
      // Take half, push as many again, then drain: compactions happen on the way. Each item is compared
      // as it comes out, and the first one out of order is reported (an expect per item cost seconds).
      let taken = 0;
      let firstWrong: { expected: number; got: number | undefined } | undefined;
      const takeExpecting = (expected: number): void => {
        const got = queue.take();
        taken++;
        if (got !== expected) firstWrong ??= { expected, got };
      };
      for (let i = 0; i < size / 2; i++) takeExpecting(i);
      for (let i = 0; i < size / 2; i++) queue.push(size + i);
      for (let i = size / 2; i < size * 1.5; i++) takeExpecting(i);
      expect(firstWrong, `size ${size}`).toBeUndefined();
      expect(queue.take()).toBeUndefined();
      expect(queue.moves).toBeGreaterThan(0);
      expect(queue.moves).toBeLessThanOrEqual(taken);
    }
  });

  it('never copies a small queue', () => {
    const queue = new WaitQueue<number>();
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 500; i++) queue.push(i);
      for (let i = 0; i < 500; i++) queue.take();
    }
    expect(queue.moves).toBe(0);
  });
});

describe('createLimiter', () => {
  it('runs 20,000 queued calls in order with at most one queue move per call', async () => {
    const queue = new WaitQueue<() => void>();
    const run = createLimiter(4, queue);
    const order: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const calls = Array.from({ length: 20_000 }, (_, i) =>
      run(async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        order.push(i);
        await Promise.resolve();
        inFlight--;
        return i;
      }),
    );
    expect(queue.length).toBe(20_000 - 4);
    const results = await Promise.all(calls);
    expect(results).toEqual(order);
    expect(order).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(peak).toBe(4);
    expect(queue.length).toBe(0);
    expect(queue.moves).toBeLessThanOrEqual(20_000);
  });

  it('frees the slot of a call that throws', async () => {
    const run = createLimiter(1);
    await expect(run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(run(async () => 'next')).resolves.toBe('next');
  });
});
