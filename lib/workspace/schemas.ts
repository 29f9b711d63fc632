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
  created_at: z.iso.datetime(),
});

/** One member as the member routes answer it (for the OpenAPI document). */
export const memberSchema = z.object({
  user_id: z.string(),
  role: z.enum(ROLES),
  spending_limit: z.nullable(z.int()),
  spent: z.int().register(z.globalRegistry, { description: 'credits spent this UTC month' }),
});

/** One key as the key routes answer it, never with its token (for the OpenAPI document). */
export const apiKeySchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the key id, `key_` and 32 hex digits: the `sub` of its token' }),
  name: z.string(),
  role: z.enum(API_KEY_ROLES),
  spending_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the key's monthly (UTC) limit in credits; null: none" }),
  spent: z.int().register(z.globalRegistry, { description: "credits the key's runs spent this UTC month" }),
  created_at: z.string(),
  created_by_id: z.string().register(z.globalRegistry, { description: 'the owner who created it' }),
  expires_at: z.string(),
  last_used_at: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'when the key was last used, to within 15 minutes; null: never',
  }),
  revoked_at: z.nullable(z.string()),
});
