/**
 * The runtime of one function instance of the bundled local server (lib/local/lambda.ts): what
 * Lambda's Node.js runtime does with a deployed bundle. At init it imports the bundle
 * (`index.mjs`, handler `handler`, as `index.handler` names it); then it runs one invocation at a
 * time, each with a Lambda context whose remaining time counts down to the function's timeout.
 * The parent sends invocations over the IPC channel and enforces the timeout. Built by esbuild
 * into a file of its own beside the bundles (it imports only Node built-ins), so that any Node.js
 * runs it: the one of the Lambda runtime's major (lib/local/lambda-node.ts).
 */
import { pathToFileURL } from 'node:url';

/** What the parent sends: one invocation. */
export interface InvokeMessage {
  type: 'invoke';
  id: number;
  event: unknown;
  awsRequestId: string;
  /** The function's timeout ends the invocation at this instant (epoch ms). */
  deadlineMs: number;
}

/** What the runtime sends back. */
export type RuntimeMessage =
  | { type: 'ready'; node: string }
  | { type: 'init-error'; error: FunctionErrorBody }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: FunctionErrorBody };

/** Lambda's shape of a function error (`errorType`, `errorMessage`). */
export interface FunctionErrorBody {
  errorType: string;
  errorMessage: string;
}

type Handler = (event: unknown, context: object) => Promise<unknown>;

const describe = (error: unknown): FunctionErrorBody =>
  error instanceof Error ? { errorType: error.name, errorMessage: error.message } : { errorType: 'Error', errorMessage: String(error) };

const send = (message: RuntimeMessage) => process.send?.(message);

async function main(): Promise<void> {
  // The local server gone (even killed), its instances go too.
  process.on('disconnect', () => process.exit(0));
  const bundle = process.argv[2];
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'function';
  let handler: Handler;
  try {
    if (!bundle) throw new Error('no bundle to run');
    const module = (await import(pathToFileURL(bundle).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${bundle} exports no function named handler`);
    handler = module.handler as Handler;
  } catch (error) {
    // Lambda's Runtime.ImportModuleError: every invocation of this instance fails.
    send({ type: 'init-error', error: describe(error) });
    return;
  }
  process.on('message', async (message: InvokeMessage) => {
    const context = {
      callbackWaitsForEmptyEventLoop: true,
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024',
      awsRequestId: message.awsRequestId,
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, message.deadlineMs - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
    try {
      send({ type: 'result', id: message.id, result: await handler(message.event, context) });
    } catch (error) {
      send({ type: 'error', id: message.id, error: describe(error) });
    }
  });
  send({ type: 'ready', node: process.version });
}

await main();
