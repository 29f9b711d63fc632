import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client.ts';
import { orgKey } from '../../lib/db/keys.ts';
import { EXAMPLE_INPUTS } from '../../lib/social/catalog/examples.ts';
import type { OperationDefinition } from '../../lib/social/catalog/index.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';

/** A valid input for each operation: what a user would really send (the API description's examples). */
export { EXAMPLE_INPUTS as VALID_INPUTS };

/** The sample provider's output for the operation's example input, a list at its largest `count`. */
export async function largestSampleOutput(operation: OperationDefinition): Promise<Record<string, unknown>> {
  const count = (operation.input as any)._zod.def.shape.count;
  const largest = count ? { count: count._zod.def.innerType._zod.bag.maximum } : {};
  const input = operation.input.parse({ ...EXAMPLE_INPUTS[operation.name], ...largest }) as Record<string, unknown>;
  return (await sampleProvider.run({ operation, input, signal: new AbortController().signal })) as Record<string, unknown>;
}

export const runUrl = (operation: string, orgId: string) => `/social/${operation}?organization_id=${orgId}`;

/** The organization's billing events, oldest first (straight from the table). */
export async function eventsOf(orgId: string) {
  return (await storedEventsOf(orgId)).map((item) => ({
    type: item.type as string,
    amount: Number(item.amount),
    title: item.title as string,
    description: item.description as string,
  }));
}

/** The organization's billing events as stored, oldest first. */
export async function storedEventsOf(orgId: string): Promise<Record<string, unknown>[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgKey(orgId).PK, ':prefix': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}
