/**
 * The request fields that set spending guardrails, shared by the routes that take them: an
 * organization's (PATCH), a member's (PUT) and an API key's (POST and PATCH) limits, and a key's
 * addresses and rate. One rule and one message per field, whichever route it comes in by.
 */
import * as z from 'zod/mini';
import { parseNetwork } from '../auth/ip-allowlist.ts';
import { config } from '../config.ts';
import { MAX_ALLOWED_IPS } from '../model.ts';

const LIMIT_RULE = 'must be a whole number of credits, 0 or more, or null for none';

/** A limit in credits (0 or more), or null for none; omitted: as the route says (none, or kept). */
export const limitField = (description: string) =>
  z.optional(z.nullable(z.int().check(z.gte(0, LIMIT_RULE))).register(z.globalRegistry, { description }));

/**
 * `confirm_above`: MCP tool calls quoted above this many credits run only after the user's consent
 * (docs/mcp.md, "Consent before an expensive call"); null: never ask.
 */
export const confirmAboveField = (description: string) =>
  z.optional(
    z
      .nullable(z.int().check(z.gte(0, 'must be a whole number of credits, 0 or more, or null to never ask')))
      .register(z.globalRegistry, { description }),
  );

/** The longest entry read: an IPv6 address with an embedded IPv4 one and a prefix is 49 characters. */
const MAX_ENTRY_CHARS = 64;

const networkEntry = z.string().check(
  z.maxLength(MAX_ENTRY_CHARS, {
    error: `must be at most ${MAX_ENTRY_CHARS} characters: an IPv4 or IPv6 address or CIDR network`,
    abort: true,
  }),
  z.refine((entry) => !('problem' in parseNetwork(entry)), {
    error: (issue) => {
      const parsed = parseNetwork(String(issue.input));
      return 'problem' in parsed ? parsed.problem : 'must be an IPv4 or IPv6 address or CIDR network';
    },
  }),
);

/** `allowed_ips`: null (anywhere) or 1 to 50 addresses or CIDR networks, IPv4 or IPv6. */
export const allowedIpsField = z.optional(
  z
    .nullable(
      z
        .array(networkEntry)
        .check(
          z.minLength(1, 'must list 1 or more addresses or networks, or be null to allow any address'),
          z.maxLength(MAX_ALLOWED_IPS, `must list at most ${MAX_ALLOWED_IPS} addresses or networks`),
        ),
    )
    .register(z.globalRegistry, {
      description: `The addresses the key may be used from: 1 to ${MAX_ALLOWED_IPS} IPv4 or IPv6 addresses or CIDR networks (an address alone is that one address; no bit may be set past a network's prefix); an IPv4-mapped IPv6 source counts as its IPv4 address. A request of the key from elsewhere answers 403 \`ip_not_allowed\`. The address is the one the gateway saw, never a header such as X-Forwarded-For. null: any address.`,
      examples: [['203.0.113.7', '198.51.100.0/24', '2001:db8::/32']],
    }),
);

/** `rate_limit`: null (the stack's per-caller limit) or `{ requests }`, 1 up to the stack's limit, over the stack's window. */
export const rateLimitField = z.optional(
  z
    .nullable(
      z.strictObject({
        requests: z.int().check(
          z.gte(1, "must be 1 or more, up to this stack's per-caller limit"),
          z.refine((requests) => requests <= config().rateLimit.requests, {
            error: () => `must be at most ${config().rateLimit.requests}, this stack's per-caller limit`,
          }),
        ),
      }),
    )
    .register(z.globalRegistry, {
      description:
        "The key's own rate: at most `requests` requests per rate-limit window of the stack (1 up to the stack's per-caller limit); its `RateLimit-*` headers and 429s then follow it. null: the stack's per-caller limit.",
    }),
);
