import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client.ts';
import { orgKey } from '../../lib/db/keys.ts';

/** A valid input for each operation: what a user would really send (the API description's examples). */
export { EXAMPLE_INPUTS as VALID_INPUTS } from '../../lib/social/catalog/examples.ts';

export const runUrl = (operation: string, orgId: string) => `/social/${operation}?organization_id=${orgId}`;

/** The organization's billing events, oldest first (straight from the table). */
export async function eventsOf(orgId: string) {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgKey(orgId).PK, ':prefix': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    type: item.type,
    amount: Number(item.amount),
    title: item.title,
    description: item.description,
  }));
}
