import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The local server runs every function in one process, many invocations at once, while all
 * handlers share one Powertools logger (lib/log.ts). Lambda Managed Instances have that shape
 * too: their runtime sets AWS_LAMBDA_MAX_CONCURRENCY and keeps a context per invocation in
 * `globalThis.awslambda.InvokeStore`, where Powertools holds the keys a request appends and its
 * Lambda context. This module plays that runtime, from its import on: without it, concurrent
 * requests overwrite each other's keys and their log lines name another request or function.
 * Installed over whatever store the AWS SDK made first (it reads only the trace id from it), so
 * the order of imports does not matter. A bundled function's process runs one invocation at a
 * time and does without (lib/local/lambda.ts leaves the variable out of its environment).
 */
type InvocationContext = Record<PropertyKey, unknown>;

const contexts = new AsyncLocalStorage<InvocationContext>();

/** The store's interface as `@aws/lambda-invoke-store` defines it (what Powertools and the SDK call). */
const store = {
  getContext: (): InvocationContext | undefined => contexts.getStore(),
  hasContext: (): boolean => contexts.getStore() !== undefined,
  get: (key: PropertyKey): unknown => contexts.getStore()?.[key],
  set(key: PropertyKey, value: unknown): void {
    const context = contexts.getStore();
    if (!context) throw new Error('No context available');
    context[key] = value;
  },
  run: <T>(context: InvocationContext, fn: () => T): T => contexts.run(context, fn),
  getRequestId: (): string => '-',
  getXRayTraceId: (): string | undefined => undefined,
  getTenantId: (): string | undefined => undefined,
};

process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';
const lambdaGlobal = globalThis as { awslambda?: Record<string, unknown> };
lambdaGlobal.awslambda ??= {};
lambdaGlobal.awslambda.InvokeStore = store;

/** Runs `fn` as one invocation among others in this process, with a log state of its own. */
export const invoke = <T>(fn: () => Promise<T>): Promise<T> => store.run({}, fn);
