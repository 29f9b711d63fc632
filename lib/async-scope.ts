import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The process's one AsyncLocalStorage of this name. Node 20 and 22 call every enabled storage's
 * hook on each promise created, and a storage stays enabled for the process's life: a module
 * evaluated again in the same process (the test workers run many files each, every file with this
 * repository's modules afresh) would otherwise add one more each time, and every promise of
 * every later file would pay for them (~20 CPU-s over the suite before this, growing per file).
 */
export function asyncScope<T>(name: string): AsyncLocalStorage<T> {
  const key = Symbol.for(`workspace-service.async-scope.${name}`);
  const scopes = globalThis as typeof globalThis & Record<symbol, AsyncLocalStorage<T> | undefined>;
  scopes[key] ??= new AsyncLocalStorage<T>();
  return scopes[key];
}
