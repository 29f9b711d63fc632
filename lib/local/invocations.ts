import { inLogScope } from '../log.ts';

/**
 * The local server runs every function in one process, many requests at once, while all
 * handlers share one logger (lib/log.ts). A Lambda instance runs one invocation at a time; here
 * each invocation gets a log state of its own, or concurrent requests would overwrite each
 * other's keys and context, and their log lines name another request or function.
 */
export const invoke = <T>(fn: () => Promise<T>): Promise<T> => inLogScope(fn);
