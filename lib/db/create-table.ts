import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { table } from './table.ts';

/** Whether a table made for DynamoDB Local has the change stream the deployed table has. */
export interface TableOptions {
  /**
   * On for `npm start` and the bench, as deployed. The tests turn it off but for the files that
   * read it (test/support/table-stream.ts): DynamoDB Local does stream bookkeeping on every write,
   * and in one shared instance its cost grows with the records of every table's stream, so a
   * suite with a stream on each file's table spent most of its time there (docs/performance.md,
   * "The test suite").
   */
  stream?: boolean;
}

const streamSpecification = { StreamEnabled: true, StreamViewType: table.stream.viewType };

/** CreateTable input derived from the shared table definition (DynamoDB Local and tests). */
export function createTableInput(tableName: string, { stream = true }: TableOptions = {}): CreateTableCommandInput {
  const keyNames = new Set<string>([table.partitionKey, table.sortKey]);
  for (const index of table.globalSecondaryIndexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' },
      { AttributeName: table.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    ...(stream ? { StreamSpecification: streamSpecification } : {}),
  };
}

/**
 * Creates the table (if missing) and turns on TTL; for DynamoDB Local, never for a deployed table.
 * A table kept in a DATA_DIR from before the change stream gets its stream turned on.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, options: TableOptions = {}): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (options.stream ?? true) await enableStream(client, tableName);
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await createTable(client, tableName, options);
}

/** Creates the table, which must not exist yet, and turns on TTL; for DynamoDB Local. */
export async function createTable(client: DynamoDBClient, tableName: string, options: TableOptions = {}): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName, options)));
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true } }),
  );
}

/** Turns the table's change stream on, if it is not: what is written from then on is in it. */
export async function enableStream(client: DynamoDBClient, tableName: string): Promise<void> {
  const { Table: found } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (found?.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: streamSpecification }));
}
