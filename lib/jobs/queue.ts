/**
 * The queue a job's items travel on, at least once. Two implementations of one interface:
 *
 * - deployed (JOBS_QUEUE_URL set): an SQS standard queue. Messages are sent 10 a request
 *   (SendMessageBatch) with `MessageGroupId` = the organization, which SQS fair queues use to keep
 *   one tenant's backlog from delaying the others' messages; the worker function
 *   (functions/job-worker.ts) receives them from the event source mapping;
 * - locally (npm start, tests): the embedded queue below, in this process, with the same
 *   semantics: a message received and not acknowledged is delivered again once its visibility
 *   timeout has passed, a delayed message is invisible until its delay is over, and receivers
 *   take the organizations in turn (round-robin over message groups), so a 1,000-item job does
 *   not hold back another organization's 5 items.
 *
 * Whatever the queue, the worker (lib/jobs/worker.ts) is what makes a delivery exactly-once in
 * effect: every step it takes is conditional or idempotent.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config, jobsConfig } from '../config.ts';
import { logError } from '../log.ts';

/** Run (or take over) one item of a job. */
export interface ItemMessage {
  kind: 'item';
  jobId: string;
  orgId: string;
  index: number;
  /**
   * What the run needs, copied from the job and the item at creation, so that the first delivery
   * claims the item without reading it first. Absent: the worker reads the job and the item.
   */
  run?: { operation: string; createdById: string; maxAgeSeconds: number | null; fields?: string | null; input: unknown };
}

/** Deliver an ended job's webhook (attempt 1 at the end, later ones after their backoff). */
export interface WebhookMessage {
  kind: 'webhook';
  jobId: string;
  orgId: string;
  attempt: number;
}

export type JobMessage = ItemMessage | WebhookMessage;

export interface Outgoing {
  message: JobMessage;
  /** The fairness key: the organization. */
  groupId: string;
  /** Invisible this long after sending (at most 900 s on SQS). */
  delaySeconds?: number;
}

export interface JobQueue {
  send(messages: readonly Outgoing[]): Promise<void>;
}

/** How a receiver handles one message: true acknowledges it; false (or a throw) leaves it to be delivered again. */
export type MessageHandler = (message: JobMessage) => Promise<boolean>;

// ---------------------------------------------------------------- SQS (deployed)

let sqs: SQSClient | undefined;

class SqsQueue implements JobQueue {
  constructor(private readonly url: string) {}

  async send(messages: readonly Outgoing[]): Promise<void> {
    sqs ??= new SQSClient({ region: config().region });
    const client = sqs;
    const batches: Outgoing[][] = [];
    for (let start = 0; start < messages.length; start += 10) batches.push(messages.slice(start, start + 10));
    let next = 0;
    const sender = async () => {
      for (let batch = batches[next++]; batch; batch = batches[next++]) {
        let entries = batch.map((outgoing, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(outgoing.message),
          MessageGroupId: outgoing.groupId,
          ...(outgoing.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(outgoing.delaySeconds)) } : {}),
        }));
        // An entry SQS failed (throttled, internal) is sent again; a sender fault is not retried.
        for (let attempt = 0; entries.length > 0; attempt += 1) {
          if (attempt >= 5) throw new Error(`SendMessageBatch left ${entries.length} messages unsent after ${attempt} attempts`);
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
          const result = await client.send(new SendMessageBatchCommand({ QueueUrl: this.url, Entries: entries }));
          const failed = result.Failed ?? [];
          const fatal = failed.find((entry) => entry.SenderFault);
          if (fatal) throw new Error(`SendMessageBatch refused a message: ${fatal.Code} ${fatal.Message ?? ''}`);
          const retry = new Set(failed.map((entry) => entry.Id));
          entries = entries.filter((entry) => retry.has(entry.Id));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(10, batches.length) }, sender));
  }
}

// ---------------------------------------------------------------- embedded (npm start, tests)

interface Held {
  id: number;
  message: JobMessage;
  visibleAtMs: number;
  receives: number;
  /** When it was sent (or its delay ended): its first receive's wait is measured from here. */
  readyAtMs: number;
}

/**
 * An in-process queue with SQS's at-least-once semantics. Messages wait in one lane per group;
 * `consume` starts receivers that take the groups in turn.
 */
export class EmbeddedQueue implements JobQueue {
  private readonly lanes = new Map<string, Held[]>();
  private order: string[] = [];
  private turn = 0;
  private nextId = 1;
  private inFlight = 0;
  private wake: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  /** Delivery counts, for the bench and the tests. */
  readonly stats = { sent: 0, received: 0, acknowledged: 0, redelivered: 0 };
  /** Called on each message's first receive with how long it waited (the bench's queue latency). */
  onFirstReceive: ((waitedMs: number, message: JobMessage) => void) | undefined;

  async send(messages: readonly Outgoing[]): Promise<void> {
    const now = Date.now();
    for (const { message, groupId, delaySeconds } of messages) {
      let lane = this.lanes.get(groupId);
      if (!lane) {
        lane = [];
        this.lanes.set(groupId, lane);
        this.order.push(groupId);
      }
      const readyAtMs = now + (delaySeconds ?? 0) * 1000;
      lane.push({ id: this.nextId++, message, visibleAtMs: readyAtMs, receives: 0, readyAtMs });
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

  /** The next visible message, taking the groups in turn, made invisible for `visibilityMs`; or when to look again. */
  private receive(visibilityMs: number): Held | { retryInMs: number } {
    const now = Date.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (let step = 0; step < this.order.length; step += 1) {
      const position = (this.turn + step) % this.order.length;
      const group = this.order[position] ?? '';
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

  private acknowledge(held: Held): void {
    for (const [group, lane] of this.lanes) {
      const at = lane.indexOf(held);
      if (at === -1) continue;
      lane.splice(at, 1);
      if (lane.length === 0) {
        this.lanes.delete(group);
        const position = this.order.indexOf(group);
        this.order.splice(position, 1);
        // The groups after it move up one place: the turn stays on the group it was on.
        if (position < this.turn) this.turn -= 1;
      }
      this.stats.acknowledged += 1;
      return;
    }
  }

  /**
   * Starts `concurrency` receivers handing messages to `handle`; returns a function that stops
   * them (messages in flight finish; unacknowledged ones stay queued).
   */
  consume(handle: MessageHandler, options: { concurrency?: number; visibilityTimeoutMs?: number } = {}): () => Promise<void> {
    const settings = jobsConfig();
    const concurrency = options.concurrency ?? settings.workerConcurrency;
    const visibilityMs = options.visibilityTimeoutMs ?? settings.visibilityTimeoutSeconds * 1000;
    let running = true;
    const receiver = async () => {
      while (running) {
        const next = this.receive(visibilityMs);
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
        this.inFlight += 1;
        try {
          if (await handle(next.message)) this.acknowledge(next);
        } catch (error) {
          logError('job queue: a message failed; it is delivered again after its visibility timeout', error);
        } finally {
          this.inFlight -= 1;
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

let embedded: EmbeddedQueue | undefined;

/** This process's embedded queue (one per process: the creating handler and the receivers share it). */
export const embeddedQueue = (): EmbeddedQueue => {
  embedded ??= new EmbeddedQueue();
  return embedded;
};

/** The queue of this deployment: SQS when JOBS_QUEUE_URL is set, the embedded queue otherwise. */
export function jobQueue(): JobQueue {
  const url = jobsConfig().queueUrl;
  return url ? new SqsQueue(url) : embeddedQueue();
}
