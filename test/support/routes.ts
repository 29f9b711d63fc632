import { randomUUID } from 'node:crypto';
import { type Route, routes } from '../../lib/routes.ts';
import type { Call, Handler } from './http.ts';

/** The routes that need a token (all but the public ones), as `[name, route]` rows for `it.each`. */
export const tokenRoutes = (): (readonly [string, Route])[] =>
  routes.filter((route) => !route.public).map((route) => [route.name, route] as const);

/** A request URL for `route` with every path parameter filled in: an organization, an operation, a key, job, webhook, purchase or invitation id, or a fresh UUID. */
export function sampleUrl(route: Route, orgId: string): string {
  const filled = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'organization_id'
      ? orgId
      : name === 'operation'
        ? 'instagram_profile'
        : name === 'key_id'
          ? `key_${randomUUID().replaceAll('-', '')}`
          : name === 'job_id'
            ? `job_${randomUUID().replaceAll('-', '')}`
            : name === 'webhook_id'
              ? `whk_${randomUUID().replaceAll('-', '')}`
              : name === 'purchase_id'
                ? `pur_${randomUUID().replaceAll('-', '').slice(0, 26)}`
                : name === 'invitation_id'
                  ? `inv_${randomUUID().replaceAll('-', '')}`
                  : randomUUID(),
  );
  // Usage needs its window: yesterday and today, by day.
  const day = 86_400_000;
  const today = Math.floor(Date.now() / day) * day;
  const window = route.name === 'GetUsage' ? `&from=${new Date(today - day).toISOString()}&to=${new Date(today + day).toISOString()}` : '';
  return `${filled}?organization_id=${orgId}${window}`;
}

/** The route's handler, imported as the local server and the stack do. */
export const handlerOf = async (route: Route): Promise<Handler> =>
  ((await import(new URL(`../../${route.entry}`, import.meta.url).href)) as { handler: Handler }).handler;

/** A valid body for the route's sample request (the operation `sampleUrl` names takes a handle). */
export const sampleBody = (route: Route): unknown => {
  if (route.name === 'CreateSocialJob') return { inputs: [{ handle: 'nike' }] };
  if (route.path.startsWith('/social/{operation}')) return { handle: 'nike' };
  if (route.path === '/mcp') return { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  if (route.name === 'UpdateOrganization') return { spending_limit: 100 };
  if (route.name === 'PutMember') return { role: 'viewer' };
  if (route.name === 'CreateApiKey') return { name: 'sample', role: 'viewer' };
  if (route.name === 'CreateWebhook') return { url: 'http://127.0.0.1:9/hooks', events: ['*'] };
  if (route.name === 'PutAlertSettings') return { low_balance: null, thresholds: [80, 100] };
  if (route.name === 'UpdateApiKey') return { daily_limit: 10 };
  if (route.name === 'CreateCreditPurchase') return { credits: 500 };
  if (route.name === 'PutAutoRecharge') return { enabled: false };
  if (route.name === 'CreateInvitation') return { email: 'sample@example.com', role: 'viewer' };
  if (route.name === 'AcceptInvitation') return { token: 'sample' };
  return {};
};

/** A well-formed request to `route` as `token`: the method it answers (POST for `ANY /mcp`), its URL, body and headers. */
export const sampleRequest = (route: Route, orgId: string, token: string): Call => ({
  method: route.method === 'ANY' ? 'POST' : route.method,
  url: sampleUrl(route, orgId),
  token,
  body: sampleBody(route),
  ...(route.path === '/mcp' ? { headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } } : {}),
});
