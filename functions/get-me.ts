import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { ROLES } from '../lib/model.ts';
import { whoAmI } from '../lib/workspace/me.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  user_id: z.string(),
  token_kind: z.enum(['user', 'api_key']),
  api_key_id: z.nullable(z.string()),
  email: z.nullable(z.string()).register(z.globalRegistry, {
    description: "the token's verified address (`email` with `email_verified` true), lower-cased; null without one and for an API key",
  }),
  organizations: z.array(
    z.object({
      organization_id: z.string(),
      role: z.enum(ROLES),
      spending_limit: z.nullable(z.int()).register(z.globalRegistry, {
        description: "the caller's own monthly (UTC) limit there: the member's, or the API key's; null: none",
      }),
      spent: z.int().register(z.globalRegistry, { description: 'credits the caller spent there this UTC month' }),
      daily_limit: z.nullable(z.int()).register(z.globalRegistry, {
        description: "the caller's own daily (UTC) limit there: the member's, or the API key's; null: none",
      }),
      spent_today: z.int().register(z.globalRegistry, { description: 'credits the caller spent there this UTC day' }),
    }),
  ),
  invitations: z
    .array(
      z.object({
        id: z.string(),
        organization_id: z.string(),
        organization_name: z.string().register(z.globalRegistry, { description: "the organization's display name when invited" }),
        role: z.enum(ROLES),
        spending_limit: z.nullable(z.int()),
        daily_limit: z.nullable(z.int()),
        invited_by: z.nullable(z.string()),
        expires_at: z.string(),
      }),
    )
    .register(z.globalRegistry, {
      description:
        'the pending invitations to `email`, newest first, at most 50 (`[]` for an API key or without a verified address); accept one with `POST /invitations/accept` and its `invitation_id`',
    }),
});

/** GET /me — any valid token: who the caller is and every organization they belong to. */
export const handler = endpoint({ schemas: {} }, async (_input, context) => whoAmI(context.caller));
