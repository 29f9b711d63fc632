import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { rateLimitKey } from './keys.ts';

/**
 * Counts one request in the caller's fixed window with a single atomic ADD, so the limit
 * holds across Lambda instances. The window item expires (TTL) shortly after it closes.
 * `amount` -1 takes back a request counted before it turned out not to count (an API key used
 * from an address it is not bound to).
 */
export async function countRequest(subject: string, nowMs: number, windowSeconds: number, amount = 1) {
  const windowMs = windowSeconds * 1000;
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const windowEndsMs = windowStart + windowMs;
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: rateLimitKey(subject, windowStart),
      UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': amount, ':expires': Math.ceil(windowEndsMs / 1000) + 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return { count: Number(result.Attributes?.count ?? 1), windowEndsMs };
}
