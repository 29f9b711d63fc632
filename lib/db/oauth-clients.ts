/**
 * OAuth clients registered by dynamic client registration (RFC 7591): one item each, written once
 * and read by id. Clients identified by a metadata document (a URL) are never stored.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { oauthClientKey } from './keys.ts';

export interface OAuthClientRecord {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  created_at: string;
}

/** Writes a new client; its id is random, so a collision is a bug and fails the condition. */
export async function putOAuthClient(client: OAuthClientRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...oauthClientKey(client.client_id), entity: 'oauth_client', ...client },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getOAuthClient(clientId: string): Promise<OAuthClientRecord | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: oauthClientKey(clientId), ConsistentRead: true }));
  const item = result.Item;
  if (!item) return null;
  return {
    client_id: String(item.client_id),
    client_name: (item.client_name as string | null | undefined) ?? null,
    redirect_uris: (item.redirect_uris as string[]).map(String),
    created_at: String(item.created_at),
  };
}
