/**
 * The DynamoDB client's call slots (lib/db/call-slots.ts): at most so many calls at once, the
 * others waiting in order, a slot freed whether its work succeeds or fails.
 */
import { describe, expect, it } from 'vitest';
import { callSlots } from '../lib/db/call-slots.ts';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('callSlots', () => {
  it('runs at most its size at once and starts the others in the order they came', async () => {
    // Prepare
    const slots = callSlots(2);
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    const work = (i: number) => () =>
      new Promise<number>((resolve) => {
        started.push(i);
        finish.set(i, () => resolve(i));
      });

    // Act
    const results = [0, 1, 2, 3].map((i) => slots.run(work(i)));
    await settled();

    // Assess
    expect(started).toEqual([0, 1]);
    expect(slots.load).toEqual({ running: 2, waiting: 2 });
    finish.get(1)?.();
    await settled();
    expect(started).toEqual([0, 1, 2]);
    finish.get(0)?.();
    finish.get(2)?.();
    await settled();
    finish.get(3)?.();
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot of work that fails', async () => {
    // Prepare
    const slots = callSlots(1);

    // Act
    const failed = slots.run(() => Promise.reject(new Error('refused')));
    const next = slots.run(async () => 'next');

    // Assess
    await expect(failed).rejects.toThrow('refused');
    expect(await next).toBe('next');
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('starts the waiting work of the lowest rank first, and work of one rank in the order it came', async () => {
    // Prepare
    const slots = callSlots(1);
    const started: string[] = [];
    let finishFirst = () => {};
    const first = slots.run(() => new Promise<void>((resolve) => (finishFirst = resolve)), 0);
    const work = (name: string) => async () => void started.push(name);

    // Act
    const rest = [
      slots.run(work('late request'), 300),
      slots.run(work('early request, first call'), 100),
      slots.run(work('no deadline'), undefined),
      slots.run(work('early request, second call'), 100),
    ];
    finishFirst();
    await Promise.all([first, ...rest]);

    // Assess
    expect(started).toEqual(['no deadline', 'early request, first call', 'early request, second call', 'late request']);
  });
});
