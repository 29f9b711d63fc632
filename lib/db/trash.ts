/**
 * An organization's trash: its soft-deleted resources within the restore window, newest deletion
 * first, from the sparse trash entries of GSI1 (lib/db/keys.ts). Eventually consistent, like any
 * index read: a resource deleted or restored a moment ago may still be missing or listed.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ResourceKind } from '../model.ts';
import { db, tableName } from './client.ts';
import { resourceKey, trashIndexQuery } from './keys.ts';
import type { AnyRecord } from './resource-records.ts';

export interface TrashedRecord {
  kind: ResourceKind;
  record: AnyRecord;
  /** The entry's keys in the index: a page that ends with it starts the next one after it. */
  position: string;
}

/**
 * One Query page of the trash deleted at `sinceIso` or later, newest first, after `after` (a
 * position), at most `limit` entries read; `kind` keeps one kind. Callers filter what the caller
 * may see and ask again while `next` is set.
 */
export async function readTrashPage(
  orgId: string,
  sinceIso: string,
  options: { limit: number; after?: string | undefined; kind?: ResourceKind | undefined },
): Promise<{ entries: TrashedRecord[]; next: string | undefined }> {
  const query = trashIndexQuery(orgId, sinceIso);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: query.indexName,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK >= :since',
      ExpressionAttributeValues: {
        ':pk': query.GSI1PK,
        ':since': query.from,
        ...(options.kind ? { ':kind': resourceKey(options.kind, '').SK } : {}),
      },
      // A Query cannot filter on its own index's keys: the kind is the item's sort key in the table.
      ...(options.kind ? { FilterExpression: 'SK = :kind' } : {}),
      ScanIndexForward: false,
      Limit: options.limit,
      ...(options.after === undefined ? {} : { ExclusiveStartKey: JSON.parse(options.after) as Record<string, unknown> }),
    }),
  );
  const entries = (result.Items ?? []).map((item) => {
    const kind = String(item.GSI1SK).split('#').at(-2) as ResourceKind;
    const position = JSON.stringify({ PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK });
    return { kind, record: item as AnyRecord, position };
  });
  return { entries, next: result.LastEvaluatedKey ? JSON.stringify(result.LastEvaluatedKey) : undefined };
}
