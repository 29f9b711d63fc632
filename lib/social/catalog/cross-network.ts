import * as z from 'zod';
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
        mention: z.string().trim().min(1).max(2048).describe('what the user wrote: "@nike", "nike", "tiktok.com/@nike", "r/aws", …'),
        network: networkEnum().optional().describe('the network to assume for a bare handle'),
        verify: z.boolean().default(false).describe('look the account up to confirm it exists and fill in its details'),
      }),
    output: () =>
      z.object({
        input: z.string(),
        /** null when a bare handle without a network could be on several networks: see candidates. */
        match: reference().nullable(),
        status: z.enum(['found', 'private', 'not_found', 'unverified', 'ambiguous']),
        id: z.string().nullable(),
        display_name: z.string().nullable(),
        avatar_url: z.string().nullable(),
        verified: z.boolean().nullable(),
        candidates: z.array(reference()),
      }),
  }),
];
