/**
 * The local payments server: the subset of Stripe's API this service uses, on 127.0.0.1, so that
 * the real `stripe` SDK works against it unchanged (`host`, `port`, `protocol: 'http'`). It speaks
 * Stripe's wire protocol: a Bearer secret key, form bodies in bracket notation, `Idempotency-Key`
 * (the same key answers the same response; other parameters 400 `idempotency_error`), Stripe's
 * object shapes, error body and id prefixes. It serves the hosted checkout page, and sends every
 * event to the webhook signed as Stripe signs (`Stripe-Signature: t=…,v1=…`), unordered, retrying
 * a non-2xx after 5, 30 and 120 s. `npm start` and the tests run it; no bundle carries it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../log.ts';
import { authenticationPage, checkoutPage, declinedPage, messagePage, readCardForm } from './payments-checkout-page.ts';
import { type CheckoutSession, PaymentsLedger, StripeApiError, type StripeEvent } from './payments-ledger.ts';
import { type FormValue, parseStripeForm } from './stripe-form.ts';

export interface PaymentsServerOptions {
  port?: number;
  secretKey?: string;
  webhookSecret?: string;
  /** Where events go; settable later (`npm start` learns its own address after this starts). */
  webhookUrl?: string;
  /** Stripe's retry schedule; the tests shorten it. */
  retryDelaysMs?: readonly number[];
}

export interface PaymentsServer {
  /** `http://127.0.0.1:<port>`: the SDK's `host`/`port`, and the base of checkout URLs. */
  url: string;
  host: string;
  port: number;
  secretKey: string;
  webhookSecret: string;
  ledger: PaymentsLedger;
  setWebhookUrl(url: string | undefined): void;
  /** Answers every API call 500 `api_error`, as Stripe does in an incident. */
  setDown(down: boolean): void;
  /** Resolves when every delivery attempt started so far has ended (retries not included). */
  deliveriesSettled(): Promise<void>;
  deliveryStats: { attempts: number; failed: number };
  close(): Promise<void>;
}

export const STRIPE_RETRY_DELAYS_MS = [5_000, 30_000, 120_000] as const;
/** How long a Checkout Session lives unless `expires_at` says otherwise (Stripe's default). */
const SESSION_SECONDS = 24 * 3600;
/** The most a request body may be here: this server's inputs are small forms. */
const MAX_BODY_BYTES = 64 * 1024;

/** `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs a webhook. */
export function stripeSignature(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

const text = (value: FormValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const record = (value: FormValue | undefined): Record<string, FormValue> =>
  value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : {};
const strings = (value: FormValue | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(record(value)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

function integer(value: FormValue | undefined, param: string, required: boolean): number | undefined {
  if (value === undefined && !required) return undefined;
  const s = text(value);
  if (s === undefined || !/^\d+$/.test(s))
    throw new StripeApiError(400, 'invalid_request_error', `Invalid integer: ${String(s)}`, 'parameter_invalid_integer', param);
  return Number(s);
}

function missing(param: string): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', `Missing required param: ${param}.`, 'parameter_missing', param);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new StripeApiError(413, 'invalid_request_error', 'Request body too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startPaymentsServer(options: PaymentsServerOptions = {}): Promise<PaymentsServer> {
  const secretKey = options.secretKey ?? `sk_test_local${randomBytes(18).toString('hex')}`;
  const webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  const retryDelaysMs = options.retryDelaysMs ?? STRIPE_RETRY_DELAYS_MS;
  let webhookUrl = options.webhookUrl;
  let down = false;
  let base = '';
  const inFlight = new Set<Promise<void>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  const deliveryStats = { attempts: 0, failed: 0 };
  /** Idempotency-Key → the request it answered and its answer. */
  const idempotent = new Map<string, { request: string; status: number; body: string }>();

  function attempt(event: StripeEvent, body: string, retry: number): void {
    const url = webhookUrl;
    if (url === undefined) return;
    deliveryStats.attempts += 1;
    const sent = fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        // Signed at each attempt, as Stripe does: a retry carries a fresh timestamp.
        'stripe-signature': stripeSignature(webhookSecret, body),
      },
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then(async (response) => {
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`answered ${response.status}`);
      })
      .catch((error: unknown) => {
        deliveryStats.failed += 1;
        const delay = retryDelaysMs[retry];
        logger.warn('payments server: a webhook delivery failed', {
          event: event.id,
          type: event.type,
          error: (error as Error).message,
          retry_in_ms: delay ?? null,
        });
        if (delay === undefined) return;
        const timer = setTimeout(() => {
          retryTimers.delete(timer);
          attempt(event, body, retry + 1);
        }, delay);
        retryTimers.add(timer);
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }

  const ledger = new PaymentsLedger(
    (sessionId) => `${base}/c/pay/${sessionId}`,
    (event, hold) => {
      // Stripe's body is its pretty-printed JSON: the signature covers exactly these bytes.
      if (!hold) attempt(event, JSON.stringify(event, null, 2), 0);
    },
  );

  function api(method: string, path: string, params: Record<string, FormValue>): unknown {
    const segments = path.split('/').slice(2);
    const [resource, id, action] = segments;
    if (method === 'POST' && path === '/v1/customers')
      return ledger.createCustomer({ email: text(params.email), name: text(params.name), metadata: strings(params.metadata) });
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params);
    if (resource === 'checkout' && id === 'sessions' && segments.length >= 3) {
      const sessionId = segments[2] ?? '';
      if (method === 'GET' && segments.length === 3) return ledger.session(sessionId);
      if (method === 'POST' && segments[3] === 'expire' && segments.length === 4) return ledger.expireSession(sessionId);
    }
    if (method === 'GET' && resource === 'payment_intents' && id !== undefined && action === undefined) return ledger.intent(id);
    if (method === 'POST' && path === '/v1/payment_intents') return createIntent(params);
    if (resource === 'payment_methods' && id !== undefined) {
      if (method === 'GET' && action === undefined) return ledger.paymentMethod(id);
      if (method === 'POST' && action === 'detach' && segments.length === 3) return ledger.detach(id);
    }
    if (method === 'GET' && resource === 'setup_intents' && id !== undefined && action === undefined) return ledger.setupIntent(id);
    if (method === 'GET' && resource === 'charges' && id !== undefined && action === undefined) return ledger.charge(id);
    if (method === 'POST' && path === '/v1/refunds') {
      const paymentIntent = text(params.payment_intent);
      if (paymentIntent === undefined) throw missing('payment_intent');
      return ledger.refund({ paymentIntent, amount: integer(params.amount, 'amount', false) });
    }
    if (method === 'GET' && path === '/v1/events') return listEvents(params);
    if (method === 'GET' && resource === 'events' && id !== undefined && action === undefined) {
      const event = ledger.events.find((e) => e.id === id);
      if (!event) throw new StripeApiError(404, 'invalid_request_error', `No such event: '${id}'`, 'resource_missing', 'id');
      return event;
    }
    throw new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  function createIntent(params: Record<string, FormValue>): unknown {
    const amount = integer(params.amount, 'amount', true) ?? 0;
    if (amount < 1) throw new StripeApiError(400, 'invalid_request_error', 'Amount must be at least 1.', 'amount_too_small', 'amount');
    const currency = text(params.currency);
    if (currency === undefined) throw missing('currency');
    const flag = (name: string): boolean => {
      const value = text(params[name]);
      if (value === undefined || value === 'false') return false;
      if (value === 'true') return true;
      throw new StripeApiError(400, 'invalid_request_error', `Invalid boolean: ${value}`, 'parameter_invalid_boolean', name);
    };
    return ledger.createIntent({
      amount,
      currency,
      customer: text(params.customer) ?? null,
      paymentMethod: text(params.payment_method) ?? null,
      confirm: flag('confirm'),
      offSession: flag('off_session'),
      metadata: strings(params.metadata),
    });
  }

  function createSession(params: Record<string, FormValue>): CheckoutSession {
    const mode = text(params.mode);
    if (mode === undefined) throw missing('mode');
    if (mode !== 'payment' && mode !== 'setup')
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `This local payments server makes Checkout Sessions of mode "payment" or "setup" only, not "${mode}".`,
        'parameter_invalid_string',
        'mode',
      );
    const successUrl = text(params.success_url);
    if (successUrl === undefined) throw missing('success_url');
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = integer(params.expires_at, 'expires_at', false) ?? now + SESSION_SECONDS;
    if (expiresAt < now + 30 * 60 - 5 || expiresAt > now + SESSION_SECONDS + 5)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        'The `expires_at` timestamp must be between 30 minutes and 24 hours from now.',
        'parameter_invalid_integer',
        'expires_at',
      );
    if (mode === 'setup') {
      // A card saved for later: no line items; `setup_intent_data[metadata]` goes on its SetupIntent.
      if (params.line_items !== undefined)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'You can only pass in line_items when using payment mode or subscription mode.',
          'parameter_unknown',
          'line_items',
        );
      return ledger.createSession({
        mode: 'setup',
        amount: null,
        currency: text(params.currency) ?? null,
        customer: text(params.customer) ?? null,
        clientReferenceId: text(params.client_reference_id) ?? null,
        metadata: strings(params.metadata),
        intentMetadata: strings(record(params.setup_intent_data).metadata),
        successUrl,
        cancelUrl: text(params.cancel_url) ?? null,
        expiresAt,
      });
    }
    const items = params.line_items;
    if (!Array.isArray(items) || items.length === 0) throw missing('line_items');
    let amount = 0;
    let currency: string | undefined;
    items.forEach((item, i) => {
      const priceData = record(record(item).price_data);
      const itemCurrency = text(priceData.currency);
      if (itemCurrency === undefined) throw missing(`line_items[${i}][price_data][currency]`);
      if (currency !== undefined && currency !== itemCurrency)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'All line items must have the same currency.',
          'parameter_invalid_string',
          'line_items',
        );
      currency = itemCurrency;
      const unit = integer(priceData.unit_amount, `line_items[${i}][price_data][unit_amount]`, true) ?? 0;
      const quantity = integer(record(item).quantity, `line_items[${i}][quantity]`, true) ?? 0;
      amount += unit * quantity;
    });
    return ledger.createSession({
      mode: 'payment',
      amount,
      currency: currency ?? 'usd',
      customer: text(params.customer) ?? null,
      clientReferenceId: text(params.client_reference_id) ?? null,
      metadata: strings(params.metadata),
      intentMetadata: strings(record(params.payment_intent_data).metadata),
      successUrl,
      cancelUrl: text(params.cancel_url) ?? null,
      expiresAt,
    });
  }

  function listEvents(params: Record<string, FormValue>): unknown {
    const limit = integer(params.limit, 'limit', false) ?? 10;
    if (limit < 1 || limit > 100)
      throw new StripeApiError(400, 'invalid_request_error', 'This value must be between 1 and 100.', 'parameter_invalid_integer', 'limit');
    const type = text(params.type);
    const many = params.types;
    const types = type !== undefined ? [type] : Array.isArray(many) ? many.filter((t): t is string => typeof t === 'string') : undefined;
    const created = params.created;
    const createdGte =
      typeof created === 'string' ? integer(created, 'created', true) : integer(record(created).gte, 'created[gte]', false);
    const { data, hasMore } = ledger.listEvents({ types, createdGte, limit, startingAfter: text(params.starting_after) });
    return { object: 'list', data, has_more: hasMore, url: '/v1/events' };
  }

  function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
      'request-id': `req_${randomBytes(8).toString('hex')}`,
      ...headers,
    });
    response.end(payload);
  }

  const errorBody = (error: StripeApiError) => ({
    error: { type: error.type, code: error.code, message: error.message, param: error.param, ...error.extra },
  });

  async function handleApi(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    const authorization = request.headers.authorization ?? '';
    if (authorization !== `Bearer ${secretKey}`) {
      reply(response, 401, {
        error: {
          type: 'invalid_request_error',
          message: 'Invalid API Key provided. This local payments server accepts its own secret key only.',
        },
      });
      return;
    }
    if (down) {
      reply(response, 500, { error: { type: 'api_error', message: 'An unknown error occurred (the local payments server is set down).' } });
      return;
    }
    const key = method === 'POST' ? request.headers['idempotency-key'] : undefined;
    const signature = `${method} ${url.pathname} ${body}`;
    if (typeof key === 'string') {
      const earlier = idempotent.get(key);
      if (earlier && earlier.request !== signature) {
        reply(response, 400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        });
        return;
      }
      if (earlier) {
        response.writeHead(earlier.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true', 'idempotency-key': key });
        response.end(earlier.body);
        return;
      }
    }
    const params = method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(body);
    let status = 200;
    let answer: unknown;
    try {
      answer = api(method, url.pathname, params);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      status = error.status;
      answer = errorBody(error);
    }
    // Stripe keeps a key's answer, a refusal included (a 500 above is not kept: a retry may succeed).
    if (typeof key === 'string') idempotent.set(key, { request: signature, status, body: JSON.stringify(answer) });
    reply(response, status, answer, typeof key === 'string' ? { 'idempotency-key': key } : {});
  }

  async function handlePage(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const [, , , sessionId = '', action] = url.pathname.split('/');
    const session = ledger.sessions.get(sessionId);
    ledger.expireDue();
    if (!session || (action !== undefined && action !== 'authenticate')) {
      reply(response, 404, messagePage('Not found', 'No such checkout page.'));
      return;
    }
    if (session.status !== 'open') {
      reply(
        response,
        410,
        messagePage('This checkout has ended', `This checkout is ${session.status === 'complete' ? 'paid' : 'expired'}.`),
      );
      return;
    }
    const view = { url: `${base}/c/pay/${session.id}`, amount: session.amount_total, currency: session.currency };
    if (request.method === 'GET' && action === undefined) {
      reply(response, 200, checkoutPage(view));
      return;
    }
    if (request.method !== 'POST') {
      reply(response, 405, messagePage('Method not allowed', 'GET or POST.'), { allow: 'GET, POST' });
      return;
    }
    const form = new URLSearchParams(await readBody(request));
    if (action === 'authenticate') {
      const outcome = form.get('outcome');
      const webhooks = form.get('webhooks') ?? 'send';
      if ((outcome !== 'complete' && outcome !== 'fail') || (webhooks !== 'send' && webhooks !== 'hold')) {
        reply(
          response,
          400,
          messagePage('Bad request', `"${outcome !== 'complete' && outcome !== 'fail' ? 'outcome' : 'webhooks'}" is malformed.`),
        );
        return;
      }
      const result = ledger.authenticate(session, outcome === 'complete', webhooks === 'hold');
      if (result === undefined) reply(response, 400, messagePage('Bad request', 'This payment asks for no authentication.'));
      else if (result.kind === 'declined') reply(response, 402, declinedPage(view, result.error.decline_code ?? result.error.code));
      else redirect(response, session);
      return;
    }
    const card = readCardForm(form);
    if ('invalid' in card) {
      reply(response, 400, checkoutPage(view, `"${card.invalid}" is malformed.`));
      return;
    }
    const result = ledger.pay(session, card.cardNumber, card.hold);
    if (result.kind === 'succeeded') redirect(response, session);
    else if (result.kind === 'declined') reply(response, 402, declinedPage(view, result.error.decline_code ?? result.error.code));
    else reply(response, 200, authenticationPage(view, card.hold ? 'hold' : 'send'));
  }

  function redirect(response: ServerResponse, session: CheckoutSession): void {
    response.writeHead(303, { location: session.success_url });
    response.end();
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const handled = url.pathname.startsWith('/v1/')
      ? handleApi(request, response, url)
      : url.pathname.startsWith('/c/pay/')
        ? handlePage(request, response, url)
        : Promise.resolve(reply(response, 404, messagePage('Not found', 'Nothing here.')));
    handled.catch((error: unknown) => {
      if (error instanceof StripeApiError) {
        if (!response.headersSent) reply(response, error.status, errorBody(error));
        return;
      }
      logger.error('payments server: a request failed', { error: (error as Error).message });
      if (!response.headersSent) reply(response, 500, { error: { type: 'api_error', message: 'An unknown error occurred.' } });
    });
  });
  // Sessions expire on their own, as Stripe's do, also when nobody asks about them.
  const expiry = setInterval(() => ledger.expireDue(), 1_000);
  expiry.unref();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  return {
    url: base,
    host: '127.0.0.1',
    port,
    secretKey,
    webhookSecret,
    ledger,
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    setDown(value) {
      down = value;
    },
    async deliveriesSettled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    deliveryStats,
    async close() {
      clearInterval(expiry);
      for (const timer of [...retryTimers, ...ledger.timers]) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
