import { consoleHostedUi } from '../lib/config.ts';
import { consoleFiles } from '../lib/console/files.ts';
import { consolePageHtml, consolePagePolicy } from '../lib/console/page.ts';
import { defined } from '../lib/defined.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { staticBody, staticReply } from '../lib/http/static-reply.ts';

/** Built on first request (the files' hashes and the sign-in settings), then kept for the life of the instance. */
let page: { body: ReturnType<typeof staticBody>; headers: Record<string, string> } | undefined;

function built() {
  if (page) return page;
  const files = consoleFiles();
  const hostedUi = consoleHostedUi();
  const input = {
    script: defined(files.get('console.js'), "the console's script").hashedName,
    styleSheet: defined(files.get('console.css'), "the console's style sheet").hashedName,
    hostedUi,
  };
  page = {
    // Never from a cache without asking: a deploy changes the files it names.
    body: staticBody(consolePageHtml(input), 'text/html; charset=utf-8', 'no-cache'),
    headers: {
      'Content-Security-Policy': consolePagePolicy(input),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    },
  };
  return page;
}

/**
 * GET /console — the web console for people (docs/console.md): a page of this service's own
 * files, which signs the person in and calls the public API with their token. No token to load it,
 * not rate limited, not part of the API description.
 */
export const handler = baseChain().handler(async (event) => {
  const { body, headers } = built();
  return staticReply(body, event, headers);
});
