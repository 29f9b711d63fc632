/**
 * A function for the bundled local server's tests (test/bundled.test.ts), bundled like any
 * other: it answers by the path it is asked, to show what the instance running it does with a
 * timeout, a thrown error, an oversize answer, and which Node.js and environment it runs in.
 */
import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';

export async function handler(event: HttpEvent, context: { getRemainingTimeInMillis(): number }): Promise<HttpResult> {
  switch (event.rawPath) {
    case '/hang':
      // Never answers: the function's timeout ends it.
      return new Promise(() => undefined);
    case '/throw':
      throw new Error('the probe fails');
    case '/slow':
      // Busy for a moment: concurrent requests need more instances.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pid: process.pid }) };
    case '/oversize':
      return { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(6 * 1024 * 1024) };
    default:
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          node: process.version,
          pid: process.pid,
          remainingMs: context.getRemainingTimeInMillis(),
          functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
          maxConcurrency: process.env.AWS_LAMBDA_MAX_CONCURRENCY ?? null,
        }),
      };
  }
}
