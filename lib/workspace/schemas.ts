/**
 * The shapes the workspace routes answer, shared by the routes that answer them (for the OpenAPI
 * document). Their own module: a function that shares a shape with another imports this, not the
 * other function, whose handler (and its code) would come along into its bundle.
 */
import * as z from 'zod/mini';
import { API_KEY_ROLES, NETWORKS, ROLES } from '../model.ts';

/** An organization's settings, as GET and PATCH answer them (for the OpenAPI document). */
export const settingsSchema = z.object({
  organization_id: z.string(),
  networks: z.array(z.enum(NETWORKS)),
  spending_limit: z.nullable(z.int()),
  spent: z.int().register(z.globalRegistry, { description: 'credits the organization spent this UTC month' }),
  daily_limit: z.nullable(z.int()).register(z.globalRegistry, { description: 'the daily (UTC) spending limit in credits; null: none' }),
  spent_today: z.int().register(z.globalRegistry, { description: 'credits the organization spent this UTC day' }),
  confirm_above: z.nullable(z.int()).register(z.globalRegistry, {
    description: 'MCP tool calls quoted above this many credits run only after consent (docs/mcp.md); null: never ask',
  }),
  created_at: z.iso.datetime(),
});

/** One member as the member routes answer it (for the OpenAPI document). */
export const memberSchema = z.object({
  user_id: z.string(),
  role: z.enum(ROLES),
  spending_limit: z.nullable(z.int()),
  spent: z.int().register(z.globalRegistry, { description: 'credits spent this UTC month' }),
  daily_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the member's daily (UTC) limit in credits; null: none" }),
  spent_today: z.int().register(z.globalRegistry, { description: 'credits spent this UTC day' }),
  email: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'the verified address the member accepted an invitation with; null for a member added by user id',
  }),
});

/** A key's name, as POST and PATCH take it. */
export const apiKeyName = z
  .string()
  .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(100, 'must be at most 100 characters'))
  .register(z.globalRegistry, { description: 'what the key is for, as its owners will recognise it (1 to 100 characters)' });

/** A key's role, as POST and PATCH take it. */
export const apiKeyRole = z
  .enum(API_KEY_ROLES, { error: 'must be "viewer" or "editor" (a key is never an owner)' })
  .register(z.globalRegistry, { description: 'what the key may do in the organization: `viewer` reads, `editor` also runs operations' });

/** One key as the key routes answer it, never with its token (for the OpenAPI document). */
export const apiKeySchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the key id, `key_` and 32 hex digits: the `sub` of its token' }),
  name: z.string(),
  role: z.enum(API_KEY_ROLES),
  spending_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the key's monthly (UTC) limit in credits; null: none" }),
  spent: z.int().register(z.globalRegistry, { description: "credits the key's runs spent this UTC month" }),
  daily_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the key's daily (UTC) limit in credits; null: none" }),
  spent_today: z.int().register(z.globalRegistry, { description: "credits the key's runs spent this UTC day" }),
  confirm_above: z.nullable(z.int()).register(z.globalRegistry, {
    description:
      "MCP tool calls of the key quoted above this many credits run only after consent (the lower of the key's and the organization's holds); null: the key sets none",
  }),
  allowed_ips: z.nullable(z.array(z.string())).register(z.globalRegistry, {
    description: 'the addresses and CIDR networks the key may be used from, as set; null: any address',
  }),
  rate_limit: z.nullable(z.object({ requests: z.int() })).register(z.globalRegistry, {
    description: "the key's own rate: requests per rate-limit window of the stack; null: the stack's per-caller limit",
  }),
  created_at: z.string(),
  created_by_id: z.string().register(z.globalRegistry, { description: 'the owner who created it' }),
  expires_at: z.string(),
  last_used_at: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'when the key was last used, to within 15 minutes; null: never',
  }),
  revoked_at: z.nullable(z.string()),
  created_via: z.optional(z.literal('oauth')).register(z.globalRegistry, {
    description: 'present on the grant of an OAuth connection (docs/mcp.md, "Connecting by OAuth") only',
  }),
  client_id: z.optional(z.string()).register(z.globalRegistry, { description: 'the OAuth client the connection was approved for' }),
  client_name: z
    .optional(z.nullable(z.string()))
    .register(z.globalRegistry, { description: "the client's name as it gave it (not verified)" }),
  redirect_uri: z.optional(z.nullable(z.string())).register(z.globalRegistry, {
    description:
      'the redirect URI the connection was approved at (its host is where the client runs); null on grants made before it was kept',
  }),
});
