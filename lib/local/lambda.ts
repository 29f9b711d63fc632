/**
 * The functions of the bundled local server (`WORKSPACE_BUNDLED=1 npm start`): each route's
 * bundle, as the stack deploys it, run as Lambda runs it. One process per function instance,
 * started by a given Node.js (the Lambda runtime's major: lib/local/lambda-node.ts) with the
 * function's environment; its runtime (lib/local/lambda-runtime.ts) imports the bundle once
 * (init) and runs one invocation at a time. A request that finds every instance of its function
 * busy starts another (a cold start, as Lambda scales out); an idle one is reused (warm).
 *
 * Lambda's limits on an invocation: the event and the result each at most 6 MB (the local
 * server checks both, lib/local/server.ts), and the function's timeout: past it the instance is
 * stopped (Lambda resets its execution environment) and the invocation fails, which API Gateway
 * answers with its own 500. A function error (the handler throws, or the instance dies) is the
 * same 500.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from '../http/types.ts';
import type { FunctionErrorBody, InvokeMessage, RuntimeMessage } from './lambda-runtime.ts';

/** A handler as the local server calls it (lib/local/server.ts's LambdaHandler). */
type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/** One function: its bundle (`index.mjs`, with its assets beside it) and its timeout. */
export interface BundledFunction {
  name: string;
  file: string;
  timeoutSeconds: number;
}

export interface LambdaOptions {
  /** The Node.js binary that runs the instances. */
  node: string;
  /** The built runtime (lib/local/lambda-runtime.ts as one file). */
  runtime: string;
  /** The environment every function gets (the stack's variables, locally: the local stack's). */
  environment: Record<string, string | undefined>;
  /** Where an instance's stdout and stderr go (Lambda: its log group); default this process's. */
  output?: (name: string, stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

/**
 * An invocation that failed as Lambda reports it: API Gateway answers 500 `Internal Server Error`.
 * `handler`: the handler threw (the instance stays); `init`: the bundle failed to load; `timeout`:
 * the function's timeout; `exit`: the instance died. The last three end the instance.
 */
export class FunctionError extends Error {
  constructor(
    functionName: string,
    readonly kind: 'handler' | 'init' | 'timeout' | 'exit',
    error: FunctionErrorBody,
  ) {
    super(`${functionName}: ${error.errorType}: ${error.errorMessage}`);
    this.name = 'FunctionError';
  }
}

/** Lambda gives a function's init (importing the bundle) 10 s, apart from the invocation's timeout. */
const INIT_TIMEOUT_MS = 10_000;

/** The instance's init, failed as Lambda fails it when it takes longer than the init phase may. */
function initialized(instance: Instance, fn: BundledFunction): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new FunctionError(fn.name, 'init', {
            errorType: 'Sandbox.Timedout',
            errorMessage: `the init (importing the bundle) took more than ${INIT_TIMEOUT_MS / 1000} s`,
          }),
        ),
      INIT_TIMEOUT_MS,
    );
  });
  return Promise.race([instance.ready, late]).finally(() => clearTimeout(timer));
}

/** The memory the stack gives every function (infra/function.ts). */
const MEMORY_MB = '1024';

/** What the Lambda runtime sets for a function (besides the function's own variables). */
function lambdaEnvironment(fn: BundledFunction, environment: Record<string, string | undefined>): Record<string, string> {
  const inherited = Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const env: Record<string, string> = Object.fromEntries(inherited);
  // A loader of this process (tsx) has no business in a bundle's.
  delete env.NODE_OPTIONS;
  return {
    ...env,
    AWS_REGION: env.AWS_REGION ?? 'us-east-1',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: MEMORY_MB,
    LAMBDA_TASK_ROOT: dirname(fn.file),
    _HANDLER: 'index.handler',
    TZ: ':UTC',
  };
}

class Instance {
  private nextId = 0;
  private pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  readonly exited: Promise<void>;
  readonly ready: Promise<string>;

  private constructor(
    private readonly fn: BundledFunction,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      child.on('message', (message: RuntimeMessage) => {
        if (message.type === 'ready') resolve(message.node);
        else if (message.type === 'init-error') reject(new FunctionError(fn.name, 'init', message.error));
        else {
          const waiting = this.pending.get(message.id);
          this.pending.delete(message.id);
          if (message.type === 'result') waiting?.resolve(message.result);
          else waiting?.reject(new FunctionError(fn.name, 'handler', message.error));
        }
      });
      child.once('exit', (code, signal) => {
        const error = new FunctionError(fn.name, 'exit', {
          errorType: 'Runtime.ExitError',
          errorMessage: `the instance exited (${signal ?? `code ${code}`})`,
        });
        reject(error);
        for (const waiting of this.pending.values()) waiting.reject(error);
        this.pending.clear();
      });
    });
    // Awaited by every invocation; an instance stopped before anyone asked must not be an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  static start(fn: BundledFunction, options: LambdaOptions): Instance {
    const child = spawn(options.node, [options.runtime, fn.file], {
      cwd: dirname(fn.file),
      env: lambdaEnvironment(fn, options.environment),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const output = options.output ?? ((_name, stream, chunk) => process[stream].write(chunk));
    child.stdout?.on('data', (chunk: Buffer) => output(fn.name, 'stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => output(fn.name, 'stderr', chunk));
    return new Instance(fn, child);
  }

  /** One invocation under the function's timeout; past it the instance is stopped. */
  invoke(event: HttpEvent, awsRequestId: string): Promise<unknown> {
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    const id = this.nextId++;
    const message: InvokeMessage = { type: 'invoke', id, event, awsRequestId, deadlineMs: Date.now() + timeoutMs };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.stop();
        reject(
          new FunctionError(this.fn.name, 'timeout', {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${this.fn.timeoutSeconds.toFixed(2)} seconds`,
          }),
        );
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.send(message);
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }
}

/**
 * What API Gateway makes of a function's result (payload 2.0): an object with `statusCode` is the
 * response as given; anything else is a 200 JSON body.
 */
function httpResultOf(result: unknown): HttpResult {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) return result as HttpResult;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : JSON.stringify(result),
  };
}

/** The bundled functions as handlers for the local server, and a way to stop their instances. */
export function lambdaFunctions(
  functions: readonly BundledFunction[],
  options: LambdaOptions,
): {
  handlers: Map<string, LambdaHandler>;
  /** The Node.js version an instance runs (starts one of the first function if none runs yet). */
  nodeVersion: () => Promise<string>;
  stop: () => Promise<void>;
} {
  const instances = new Set<Instance>();
  const idle = new Map<string, Instance[]>(functions.map((fn) => [fn.name, []]));
  const start = (fn: BundledFunction) => {
    const instance = Instance.start(fn, options);
    instances.add(instance);
    void instance.exited.then(() => instances.delete(instance));
    return instance;
  };
  const handlers = new Map<string, LambdaHandler>(
    functions.map((fn) => [
      fn.name,
      async (event: HttpEvent, context: Context): Promise<HttpResult> => {
        const free = idle.get(fn.name) ?? [];
        let instance = free.pop();
        while (instance && !instance.alive) instance = free.pop();
        instance ??= start(fn);
        try {
          await initialized(instance, fn);
          const result = await instance.invoke(event, context.awsRequestId);
          free.push(instance);
          return httpResultOf(result);
        } catch (error) {
          // A handler that threw leaves a usable instance; a failed init, a timeout or a crash does not.
          if (error instanceof FunctionError && error.kind === 'handler') free.push(instance);
          else instance.stop();
          throw error;
        }
      },
    ]),
  );
  return {
    handlers,
    nodeVersion: () => {
      const running = [...instances][0];
      if (running) return running.ready;
      const [first] = functions;
      if (!first) return Promise.reject(new Error('no function to start'));
      const instance = start(first);
      idle.get(first.name)?.push(instance);
      return instance.ready;
    },
    stop: async () => {
      const all = [...instances];
      for (const instance of all) instance.stop();
      await Promise.all(all.map((instance) => instance.exited));
    },
  };
}
