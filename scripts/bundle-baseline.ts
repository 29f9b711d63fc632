/**
 * The baseline of `npm run bundle:report`: a bare DynamoDB document client and nothing else,
 * bundled with the functions' options. A function should cost little more than this.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
