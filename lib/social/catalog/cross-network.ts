import * as z from 'zod/mini';
import { lazy, networkEnum, operation } from './shapes.ts';

const reference = lazy(() =>
  z.object({
    network: networkEnum(),
    kind: z.enum(['user', 'company', 'page', 'channel', 'subreddit', 'group']),
    handle: z.string(),
    url: z.string(),
  }),
);

export const crossNetwork = [
  operation({
    name: 'resolve_mention',
    network: undefined,
    description: 'Turn a mention (@nike, a profile URL, a channel or subreddit) into its network and canonical profile.',
    cost: 1,
    input: () =>
      z.strictObject({
        mention: z
          .string()
          .check(
            z.trim(),
            z.minLength(1),
            z.maxLength(2048),
            z.describe('what the user wrote: "@nike", "nike", "tiktok.com/@nike", "r/aws", …'),
          ),
        network: z.optional(networkEnum()).check(z.describe('the network to assume for a bare handle')),
        verify: z._default(z.boolean(), false).check(z.describe('look the account up to confirm it exists and fill in its details')),
      }),
    output: () =>
      z.object({
        input: z.string(),
        /** null when a bare handle without a network could be on several networks: see candidates. */
        match: z.nullable(reference()),
        status: z.enum(['found', 'private', 'not_found', 'unverified', 'ambiguous']),
        id: z.nullable(z.string()),
        display_name: z.nullable(z.string()),
        avatar_url: z.nullable(z.string()),
        verified: z.nullable(z.boolean()),
        candidates: z.array(reference()),
      }),
  }),
];
