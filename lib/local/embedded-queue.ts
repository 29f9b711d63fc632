/**
 * `npm start`'s queues (and the tests' and benches'): in this process, with SQS's at-least-once
 * semantics. A message received and not acknowledged is delivered again once its visibility
 * timeout has passed, a delayed message is invisible until its delay is over, and receivers take
 * the organizations in turn (round-robin over message groups), so a 1,000-item job does not hold
 * back another organization's 5 items. A consumer may also bound how many messages of one group
 * it holds at once (`perGroup`): the webhooks' consumer does, so that slow receivers of some
 * organizations never take every delivery slot (docs/jobs.md, "Webhooks").
 *
 * Here, under lib/local/, so that no deployed function carries it (test/infra/bundles.test.ts):
 * `installEmbeddedQueues` makes these the queues of this process (lib/queues/queue.ts).
 */
import { logError } from '../log.ts';
import { type MessageHandler, type Outgoing, type Queue, type QueueName, useLocalQueues } from '../queues/queue.ts';

interface Held<M> {
  id: number;
  group: string;
  message: M;
  visibleAtMs: number;
  receives: number;
  /** When it was sent (or its delay ended): its first receive's wait is measured from here. */
  readyAtMs: number;
}

export interface ConsumeOptions {
  /** Messages handled at once. */
  concurrency: number;
  /** How long a received message stays invisible. */
  visibilityTimeoutMs: number;
  /** At most this many messages of one group handled at once (default: no bound). */
  perGroup?: number;
}

/** An in-process queue: one lane per group; `consume` starts receivers that take the groups in turn. */
export class EmbeddedQueue<M = unknown> implements Queue<M> {
  private readonly lanes = new Map<string, Held<M>[]>();
  private order: string[] = [];
  private turn = 0;
  private nextId = 1;
  private inFlight = 0;
  private readonly inFlightByGroup = new Map<string, number>();
  private wake: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  /** Delivery counts, for the bench and the tests. */
  readonly stats = { sent: 0, received: 0, acknowledged: 0, redelivered: 0 };
  /** Called on each message's first receive with how long it waited (the bench's queue latency). */
  onFirstReceive: ((waitedMs: number, message: M) => void) | undefined;

  async send(messages: readonly Outgoing<M>[]): Promise<void> {
    const now = Date.now();
    for (const { message, groupId, delaySeconds } of messages) {
      let lane = this.lanes.get(groupId);
      if (!lane) {
        lane = [];
        this.lanes.set(groupId, lane);
        this.order.push(groupId);
      }
      const readyAtMs = now + (delaySeconds ?? 0) * 1000;
      lane.push({ id: this.nextId++, group: groupId, message, visibleAtMs: readyAtMs, receives: 0, readyAtMs });
      this.stats.sent += 1;
    }
    this.notify();
  }

  /** Drops every message, as a process that stops loses them (tests of what `npm start` recovers at start). */
  purge(): void {
    this.lanes.clear();
    this.order = [];
    this.turn = 0;
  }

  /** Messages not yet acknowledged (waiting, delayed or in flight). */
  get size(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.length;
    return count;
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const wake of waiting) wake();
  }

  /**
   * The next visible message of a group under its bound, taking the groups in turn, made
   * invisible for `visibilityMs`; or when to look again (a group at its bound is looked at again
   * when one of its messages is done: `notify`).
   */
  private receive(visibilityMs: number, perGroup: number): Held<M> | { retryInMs: number } {
    const now = Date.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (let step = 0; step < this.order.length; step += 1) {
      const position = (this.turn + step) % this.order.length;
      const group = this.order[position] ?? '';
      if ((this.inFlightByGroup.get(group) ?? 0) >= perGroup) continue;
      const lane = this.lanes.get(group) ?? [];
      const held = lane.find((candidate) => candidate.visibleAtMs <= now);
      for (const candidate of lane) soonest = Math.min(soonest, candidate.visibleAtMs);
      if (held) {
        this.turn = position + 1;
        if (held.receives > 0) this.stats.redelivered += 1;
        else this.onFirstReceive?.(now - held.readyAtMs, held.message);
        held.receives += 1;
        held.visibleAtMs = now + visibilityMs;
        this.stats.received += 1;
        return held;
      }
    }
    return { retryInMs: Number.isFinite(soonest) ? Math.max(1, soonest - now) : 1_000 };
  }

  private acknowledge(held: Held<M>): void {
    const lane = this.lanes.get(held.group);
    const at = lane?.indexOf(held) ?? -1;
    if (!lane || at === -1) return;
    lane.splice(at, 1);
    if (lane.length === 0) {
      this.lanes.delete(held.group);
      const position = this.order.indexOf(held.group);
      this.order.splice(position, 1);
      // The groups after it move up one place: the turn stays on the group it was on.
      if (position < this.turn) this.turn -= 1;
    }
    this.stats.acknowledged += 1;
  }

  private track(group: string, change: 1 | -1): void {
    const count = (this.inFlightByGroup.get(group) ?? 0) + change;
    if (count > 0) this.inFlightByGroup.set(group, count);
    else this.inFlightByGroup.delete(group);
    this.inFlight += change;
  }

  /**
   * Starts `concurrency` receivers handing messages to `handle`, each with the time its message
   * becomes visible again; returns a function that stops them (messages in flight finish;
   * unacknowledged ones stay queued).
   */
  consume(handle: MessageHandler<M>, options: ConsumeOptions): () => Promise<void> {
    const { concurrency, visibilityTimeoutMs } = options;
    const perGroup = options.perGroup ?? Number.POSITIVE_INFINITY;
    let running = true;
    const receiver = async () => {
      while (running) {
        const next = this.receive(visibilityTimeoutMs, perGroup);
        if ('retryInMs' in next) {
          this.checkIdle();
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, next.retryInMs);
            this.wake.push(() => {
              clearTimeout(timer);
              resolve();
            });
          });
          continue;
        }
        this.track(next.group, 1);
        try {
          if (await handle(next.message, { deadlineMs: next.visibleAtMs })) this.acknowledge(next);
        } catch (error) {
          logError('queue: a message failed; it is delivered again after its visibility timeout', error);
        } finally {
          this.track(next.group, -1);
          // A group at its bound may be taken again.
          if (perGroup !== Number.POSITIVE_INFINITY) this.notify();
          this.checkIdle();
        }
      }
    };
    const receivers = Array.from({ length: concurrency }, receiver);
    return async () => {
      running = false;
      this.notify();
      await Promise.all(receivers);
    };
  }

  private checkIdle(): void {
    if (this.size > 0 || this.inFlight > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const done of waiters) done();
  }

  /** Resolves once every message sent has been acknowledged and nothing is in flight. */
  drained(): Promise<void> {
    if (this.size === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

const queues = new Map<QueueName, EmbeddedQueue>();

/** This process's embedded queue `name` (one per process: the senders and the consumers share it). */
export function embeddedQueue<M = unknown>(name: QueueName = 'jobs'): EmbeddedQueue<M> {
  let queue = queues.get(name);
  if (!queue) {
    queue = new EmbeddedQueue();
    queues.set(name, queue);
  }
  return queue as EmbeddedQueue<M>;
}

/** Makes this process's embedded queues the ones a queue without a URL is (npm start, the tests, the benches). */
export function installEmbeddedQueues(): void {
  useLocalQueues((name) => embeddedQueue(name));
}
