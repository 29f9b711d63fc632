import { consoleFiles } from '../lib/console/files.ts';
import { notFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { staticReply } from '../lib/http/static-reply.ts';

/**
 * GET /console/{asset} — the console's script or style sheet, by the hashed name the page links
 * (`console.<hash>.js`): cached for a year. Any other name, an earlier build's included, is 404.
 */
export const handler = baseChain().handler(async (event) => {
  const name = event.pathParameters?.asset;
  const file = [...consoleFiles().values()].find((candidate) => candidate.hashedName === name);
  if (!file) throw notFound();
  return staticReply(file.body, event, { 'X-Content-Type-Options': 'nosniff' });
});
