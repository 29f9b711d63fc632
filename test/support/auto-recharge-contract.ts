/**
 * Auto-recharge and the saved card as the contract has them (DESIGN.md, "Funding without an
 * operator": "Auto-recharge", "The card"), answered inside a browser page until the service
 * answers them itself. Their routes are being built on another branch; the console's Billing
 * screen is built against the contract's shapes, and test/console.test.ts uses this only while
 * the stack answers `GET …/auto-recharge` with 404 `route_not_found` (`answeredByService`). Once
 * those routes are merged, the real ones answer and this module is not used: delete it then.
 *
 * What it models: the state's fields and their defaults; `PUT` with `enabled` and the three
 * amounts (409 `payment_method_required` without a card, 400 naming `monthly_cap` below
 * `credits`); `POST …/payment-method` → 201 `{ checkout_url, expires_at }`, whose page takes a
 * card form as the local payments server's checkout page does and 303s to the success URL; `DELETE`
 * → 204, turning an enabled auto-recharge off (`payment_method_removed`). Nothing else (no
 * recharge ever runs here).
 */
import type { HTTPRequest, Page } from 'puppeteer-core';

export const FAKE_CHECKOUT_ORIGIN = 'http://checkout.contract.invalid';

interface State {
  enabled: boolean;
  threshold: number | null;
  credits: number | null;
  monthly_cap: number | null;
  recharged_this_month: number;
  consecutive_failures: number;
  disabled_reason: string | null;
  last_recharge_at: string | null;
  next_attempt_at: string | null;
  payment_method: { brand: string; last4: string } | null;
}

/** Whether the stack itself answers the auto-recharge routes (the other branch merged). */
export async function answeredByService(baseUrl: string, orgId: string, token: string): Promise<boolean> {
  const answer = await fetch(`${baseUrl}/organizations/${orgId}/auto-recharge`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await answer.json()) as { code?: string };
  return !(answer.status === 404 && body.code === 'route_not_found');
}

/** Answers the four routes for `orgId` in `page` (request interception); every other request goes on. */
export async function answerAutoRechargeInPage(page: Page, baseUrl: string, orgId: string): Promise<{ state: State }> {
  const model: { state: State } = {
    state: {
      enabled: false,
      threshold: null,
      credits: null,
      monthly_cap: null,
      recharged_this_month: 0,
      consecutive_failures: 0,
      disabled_reason: null,
      last_recharge_at: null,
      next_attempt_at: null,
      payment_method: null,
    },
  };
  const route = `${baseUrl}/organizations/${orgId}/auto-recharge`;
  const successUrl = `${baseUrl}/console?organization_id=${orgId}#billing`;
  const json = (request: HTTPRequest, status: number, body?: unknown) =>
    request.respond({
      status,
      contentType: 'application/json',
      headers: { 'Cache-Control': 'no-store' },
      body: body === undefined ? '' : JSON.stringify(body),
    });
  const refusal = (code: string, message: string, data?: unknown) => ({ code, message, ...(data ? { data } : {}), request_id: 'contract' });

  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    const url = request.url().split('#')[0] ?? '';
    const method = request.method();
    if (url === route && method === 'GET') return void json(request, 200, model.state);
    if (url === route && method === 'PUT') {
      const body = JSON.parse(request.postData() ?? '{}') as Partial<State>;
      if (body.enabled && !model.state.payment_method)
        return void json(request, 409, refusal('payment_method_required', 'save a card first: auto-recharge pays with it'));
      if (body.enabled && (body.monthly_cap ?? 0) < (body.credits ?? 0))
        return void json(request, 400, refusal('validation_failed', 'body.monthly_cap: must be at least credits'));
      const turningOn = body.enabled === true && !model.state.enabled;
      model.state = {
        ...model.state,
        enabled: body.enabled === true,
        threshold: body.threshold ?? model.state.threshold,
        credits: body.credits ?? model.state.credits,
        monthly_cap: body.monthly_cap ?? model.state.monthly_cap,
        ...(turningOn ? { disabled_reason: null, consecutive_failures: 0 } : {}),
      };
      return void json(request, 200, model.state);
    }
    if (url === `${route}/payment-method` && method === 'POST')
      return void json(request, 201, {
        checkout_url: `${FAKE_CHECKOUT_ORIGIN}/setup/cs_test_contract`,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      });
    if (url === `${route}/payment-method` && method === 'GET')
      return void json(request, 200, { payment_method: model.state.payment_method });
    if (url === `${route}/payment-method` && method === 'DELETE') {
      if (model.state.payment_method && model.state.enabled)
        model.state = { ...model.state, enabled: false, disabled_reason: 'payment_method_removed' };
      model.state = { ...model.state, payment_method: null };
      return void json(request, 204);
    }
    if (url.startsWith(`${FAKE_CHECKOUT_ORIGIN}/setup/`) && method === 'GET')
      return void request.respond({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><html lang="en"><title>Save a card</title><form method="post" action="${url}">
<label>Card number <input name="card_number"></label><label>Expiry month <input name="exp_month"></label>
<label>Expiry year <input name="exp_year"></label><label>CVC <input name="cvc"></label><button type="submit">Save</button></form>`,
      });
    if (url.startsWith(`${FAKE_CHECKOUT_ORIGIN}/setup/`) && method === 'POST') {
      const form = new URLSearchParams(request.postData() ?? '');
      const number = (form.get('card_number') ?? '').replace(/ /g, '');
      model.state = { ...model.state, payment_method: { brand: 'visa', last4: number.slice(-4) }, consecutive_failures: 0 };
      return void request.respond({ status: 303, headers: { Location: successUrl }, body: '' });
    }
    void request.continue();
  });
  return model;
}
