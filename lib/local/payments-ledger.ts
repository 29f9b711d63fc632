/**
 * The local payments server's objects (lib/local/payments-server.ts): customers, Checkout
 * Sessions (payment and setup), saved cards (PaymentMethods, SetupIntents), PaymentIntents (a
 * checkout's, or one confirmed off-session with a saved card), charges, refunds, disputes and the events they raise, in Stripe's
 * shapes and with Stripe's id prefixes. In memory: a restart of `npm start` starts a new account.
 * What a card number does is Stripe's test-card table (docs/funding.md, "Locally").
 */
import { randomBytes } from 'node:crypto';

type Metadata = Record<string, string>;

export interface Customer {
  id: string;
  object: 'customer';
  created: number;
  email: string | null;
  name: string | null;
  metadata: Metadata;
  livemode: false;
}

export interface PaymentError {
  type: 'card_error';
  code: string;
  decline_code: string | null;
  message: string;
  /** The card's PaymentMethod, when the attempt used a saved one (as Stripe reports it). */
  payment_method?: PaymentMethod;
}

/** A saved card: made by a setup-mode Checkout Session, attached to its customer until detached. */
export interface PaymentMethod {
  id: string;
  object: 'payment_method';
  type: 'card';
  card: { brand: string; last4: string; exp_month: number; exp_year: number; funding: 'credit' };
  customer: string | null;
  metadata: Metadata;
  created: number;
  livemode: false;
}

/** What a setup-mode Checkout Session makes: the card saved for payments off-session. */
export interface SetupIntent {
  id: string;
  object: 'setup_intent';
  status: 'requires_payment_method' | 'requires_action' | 'succeeded';
  usage: 'off_session';
  customer: string | null;
  payment_method: string | null;
  metadata: Metadata;
  created: number;
  livemode: false;
}

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  customer: string | null;
  status: 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'succeeded' | 'canceled';
  metadata: Metadata;
  payment_method: string | null;
  off_session: boolean | null;
  next_action: { type: 'use_stripe_sdk' } | null;
  latest_charge: string | null;
  last_payment_error: PaymentError | null;
  created: number;
  livemode: false;
}

export interface Charge {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  customer: string | null;
  payment_intent: string;
  metadata: Metadata;
  paid: true;
  refunded: boolean;
  disputed: boolean;
  status: 'succeeded';
  payment_method_details: { type: 'card'; card: { brand: string; last4: string } };
  created: number;
  livemode: false;
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  charge: string;
  currency: string;
  payment_intent: string;
  status: 'succeeded';
  created: number;
}

export interface Dispute {
  id: string;
  object: 'dispute';
  amount: number;
  charge: string;
  currency: string;
  payment_intent: string;
  reason: 'fraudulent';
  status: 'needs_response';
  created: number;
  livemode: false;
}

export interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: 'payment' | 'setup';
  status: 'open' | 'complete' | 'expired';
  /** A setup session's is `no_payment_required`, as Stripe's. */
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  /** Null for a setup session: it charges nothing. */
  amount_total: number | null;
  currency: string | null;
  customer: string | null;
  client_reference_id: string | null;
  metadata: Metadata;
  payment_intent: string | null;
  setup_intent: string | null;
  success_url: string;
  cancel_url: string | null;
  url: string | null;
  expires_at: number;
  created: number;
  livemode: false;
}

export type StripeObject = Customer | PaymentIntent | Charge | Refund | Dispute | CheckoutSession | PaymentMethod | SetupIntent;

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  type: string;
  data: { object: StripeObject };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
}

/** A request Stripe refuses: its status and its `error` body. */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
    /** More of Stripe's error body: a card error's `decline_code`, `payment_intent`, `payment_method`. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const API_VERSION = '2025-12-15.clover';

/** Stripe's test cards (https://docs.stripe.com/testing) and what each does to a payment. */
export type CardOutcome = 'succeeds' | 'declined' | 'authentication' | 'dispute' | 'saves_then_declines';
export function outcomeOf(cardNumber: string): { outcome: CardOutcome; brand: string } {
  switch (cardNumber) {
    case '4242424242424242':
      return { outcome: 'succeeds', brand: 'visa' };
    case '4000000000000259':
      return { outcome: 'dispute', brand: 'visa' };
    case '4000002760003184':
      // Authentication on every payment, off-session too (and to save it).
      return { outcome: 'authentication', brand: 'visa' };
    case '4000000000000341':
      // Saves (a setup succeeds), then every payment of it is declined.
      return { outcome: 'saves_then_declines', brand: 'visa' };
    default:
      // 0002 and any other number: a generic decline.
      return { outcome: 'declined', brand: 'visa' };
  }
}

/** A card as the ledger keeps it beside its PaymentMethod: what paying with it does. */
interface CardOnFile {
  brand: string;
  last4: string;
  outcome: CardOutcome;
}

const DECLINED: PaymentError = {
  type: 'card_error',
  code: 'card_declined',
  decline_code: 'generic_decline',
  message: 'Your card was declined.',
};

/** Stripe's answer to an off-session payment whose card asks for authentication: a decline to bring the customer back for. */
const AUTHENTICATION_REQUIRED: PaymentError = {
  type: 'card_error',
  code: 'authentication_required',
  decline_code: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
};

const idOf = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** What a payment attempt left: the page to show next. */
export type AttemptResult = { kind: 'succeeded' } | { kind: 'declined'; error: PaymentError } | { kind: 'authentication' };

export class PaymentsLedger {
  readonly customers = new Map<string, Customer>();
  readonly sessions = new Map<string, CheckoutSession>();
  readonly intents = new Map<string, PaymentIntent>();
  readonly charges = new Map<string, Charge>();
  readonly paymentMethods = new Map<string, PaymentMethod>();
  readonly setupIntents = new Map<string, SetupIntent>();
  /** Newest last; listed newest first. */
  readonly events: StripeEvent[] = [];
  /** Cards waiting for their authentication page, by PaymentIntent id (a payment) or session id (a setup). */
  private readonly pendingCards = new Map<string, CardOnFile>();
  /** What each saved card does when it pays. */
  private readonly cardsOnFile = new Map<string, CardOnFile>();

  /** `publish(event, hold)`: the server sends it to the webhook unless held. */
  constructor(
    private readonly checkoutUrlOf: (sessionId: string) => string,
    private readonly publish: (event: StripeEvent, hold: boolean) => void,
  ) {}

  private emit(type: string, object: StripeObject, hold: boolean): void {
    const event: StripeEvent = {
      id: idOf('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: nowSeconds(),
      type,
      // A copy: an event shows the object as it was when the event happened.
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: hold ? 0 : 1,
      request: { id: null, idempotency_key: null },
    };
    this.events.push(event);
    this.publish(event, hold);
  }

  createCustomer(params: { email?: string; name?: string; metadata?: Metadata }): Customer {
    const customer: Customer = {
      id: idOf('cus'),
      object: 'customer',
      created: nowSeconds(),
      email: params.email ?? null,
      name: params.name ?? null,
      metadata: params.metadata ?? {},
      livemode: false,
    };
    this.customers.set(customer.id, customer);
    return customer;
  }

  createSession(params: {
    mode: 'payment' | 'setup';
    amount: number | null;
    currency: string | null;
    customer: string | null;
    clientReferenceId: string | null;
    metadata: Metadata;
    intentMetadata: Metadata;
    successUrl: string;
    cancelUrl: string | null;
    expiresAt: number;
  }): CheckoutSession {
    if (params.customer !== null && !this.customers.has(params.customer))
      throw new StripeApiError(400, 'invalid_request_error', `No such customer: '${params.customer}'`, 'resource_missing', 'customer');
    const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
    const session: CheckoutSession = {
      id,
      object: 'checkout.session',
      mode: params.mode,
      status: 'open',
      payment_status: params.mode === 'setup' ? 'no_payment_required' : 'unpaid',
      amount_total: params.amount,
      currency: params.currency,
      customer: params.customer,
      client_reference_id: params.clientReferenceId,
      metadata: params.metadata,
      payment_intent: null,
      setup_intent: null,
      success_url: params.successUrl,
      cancel_url: params.cancelUrl,
      url: this.checkoutUrlOf(id),
      expires_at: params.expiresAt,
      created: nowSeconds(),
      livemode: false,
    };
    this.sessions.set(id, session);
    this.intentMetadata.set(id, params.intentMetadata);
    return session;
  }
  private readonly intentMetadata = new Map<string, Metadata>();

  session(id: string): CheckoutSession {
    this.expireDue();
    const session = this.sessions.get(id);
    if (!session)
      throw new StripeApiError(404, 'invalid_request_error', `No such checkout.session: '${id}'`, 'resource_missing', 'session');
    return session;
  }

  intent(id: string): PaymentIntent {
    const intent = this.intents.get(id);
    if (!intent) throw new StripeApiError(404, 'invalid_request_error', `No such payment_intent: '${id}'`, 'resource_missing', 'intent');
    return intent;
  }

  charge(id: string): Charge {
    const charge = this.charges.get(id);
    if (!charge) throw new StripeApiError(404, 'invalid_request_error', `No such charge: '${id}'`, 'resource_missing', 'id');
    return charge;
  }

  expireSession(id: string): CheckoutSession {
    const session = this.session(id);
    if (session.status !== 'open')
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
      );
    this.expire(session);
    return session;
  }

  private expire(session: CheckoutSession): void {
    session.status = 'expired';
    session.url = null;
    this.emit('checkout.session.expired', session, false);
  }

  /** Sessions past their `expires_at` expire, as Stripe's do on their own. */
  expireDue(): void {
    const now = nowSeconds();
    for (const session of this.sessions.values()) if (session.status === 'open' && session.expires_at <= now) this.expire(session);
  }

  /** The session's PaymentIntent, made at its first attempt (as Stripe's Checkout does). */
  private intentOf(session: CheckoutSession): PaymentIntent {
    if (session.payment_intent) return this.intent(session.payment_intent);
    const intent = this.newIntent({
      amount: session.amount_total ?? 0,
      currency: session.currency ?? 'usd',
      customer: session.customer,
      metadata: this.intentMetadata.get(session.id) ?? {},
      paymentMethod: null,
      offSession: null,
    });
    session.payment_intent = intent.id;
    return intent;
  }

  private newIntent(params: {
    amount: number;
    currency: string;
    customer: string | null;
    metadata: Metadata;
    paymentMethod: string | null;
    offSession: boolean | null;
  }): PaymentIntent {
    const intent: PaymentIntent = {
      id: idOf('pi'),
      object: 'payment_intent',
      amount: params.amount,
      amount_received: 0,
      currency: params.currency,
      customer: params.customer,
      status: 'requires_payment_method',
      metadata: params.metadata,
      payment_method: params.paymentMethod,
      off_session: params.offSession,
      next_action: null,
      latest_charge: null,
      last_payment_error: null,
      created: nowSeconds(),
      livemode: false,
    };
    this.intents.set(intent.id, intent);
    return intent;
  }

  /** A card submitted on the checkout page of an open session: a payment, or (a setup session) the card saved. */
  pay(session: CheckoutSession, cardNumber: string, hold: boolean): AttemptResult {
    const { outcome, brand } = outcomeOf(cardNumber);
    const card: CardOnFile = { brand, last4: cardNumber.slice(-4), outcome };
    if (session.mode === 'setup') return this.setUp(session, card, hold);
    const intent = this.intentOf(session);
    if (outcome === 'declined' || outcome === 'saves_then_declines') return this.decline(intent, DECLINED, hold);
    if (outcome === 'authentication') {
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk' };
      this.pendingCards.set(intent.id, card);
      this.emit('payment_intent.requires_action', intent, hold);
      return { kind: 'authentication' };
    }
    this.charge_(intent, card, hold);
    this.complete(session, hold);
    return { kind: 'succeeded' };
  }

  /** The authentication page's answer for a payment (or a setup) that asked for it. */
  authenticate(session: CheckoutSession, complete: boolean, hold: boolean): AttemptResult | undefined {
    if (session.mode === 'setup') {
      const card = this.pendingCards.get(session.id);
      if (!card) return undefined;
      this.pendingCards.delete(session.id);
      if (!complete) return { kind: 'declined', error: DECLINED };
      this.saveCard(session, card, hold);
      return { kind: 'succeeded' };
    }
    const intent = session.payment_intent ? this.intents.get(session.payment_intent) : undefined;
    const card = intent && this.pendingCards.get(intent.id);
    if (!intent || !card || intent.status !== 'requires_action') return undefined;
    this.pendingCards.delete(intent.id);
    if (!complete) return this.decline(intent, DECLINED, hold);
    this.charge_(intent, card, hold);
    this.complete(session, hold);
    return { kind: 'succeeded' };
  }

  /** A setup session's card: declined, asked to authenticate, or saved (0341 saves: its payments fail later). */
  private setUp(session: CheckoutSession, card: CardOnFile, hold: boolean): AttemptResult {
    if (card.outcome === 'declined') return { kind: 'declined', error: DECLINED };
    if (card.outcome === 'authentication') {
      this.pendingCards.set(session.id, card);
      return { kind: 'authentication' };
    }
    this.saveCard(session, card, hold);
    return { kind: 'succeeded' };
  }

  /** The card becomes a PaymentMethod attached to the session's customer, through a succeeded SetupIntent. */
  private saveCard(session: CheckoutSession, card: CardOnFile, hold: boolean): void {
    const method: PaymentMethod = {
      id: idOf('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, funding: 'credit' },
      customer: session.customer,
      metadata: {},
      created: nowSeconds(),
      livemode: false,
    };
    this.paymentMethods.set(method.id, method);
    this.cardsOnFile.set(method.id, card);
    const setup: SetupIntent = {
      id: idOf('seti'),
      object: 'setup_intent',
      status: 'succeeded',
      usage: 'off_session',
      customer: session.customer,
      payment_method: method.id,
      metadata: this.intentMetadata.get(session.id) ?? {},
      created: nowSeconds(),
      livemode: false,
    };
    this.setupIntents.set(setup.id, setup);
    session.setup_intent = setup.id;
    if (method.customer) this.emit('payment_method.attached', method, hold);
    this.emit('setup_intent.succeeded', setup, hold);
    this.complete(session, hold);
  }

  paymentMethod(id: string): PaymentMethod {
    const method = this.paymentMethods.get(id);
    if (!method) throw new StripeApiError(404, 'invalid_request_error', `No such PaymentMethod: '${id}'`, 'resource_missing', 'id');
    return method;
  }

  setupIntent(id: string): SetupIntent {
    const setup = this.setupIntents.get(id);
    if (!setup) throw new StripeApiError(404, 'invalid_request_error', `No such setupintent: '${id}'`, 'resource_missing', 'intent');
    return setup;
  }

  /** `POST /v1/payment_methods/{id}/detach`: no customer can be charged with it any more. */
  detach(id: string): PaymentMethod {
    const method = this.paymentMethod(id);
    if (method.customer === null)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `The payment method you provided is not attached to a customer so detachment is impossible.`,
        'payment_method_unexpected_state',
      );
    method.customer = null;
    this.emit('payment_method.detached', method, false);
    return method;
  }

  /**
   * `POST /v1/payment_intents`: with `confirm`, the saved card pays at once. As Stripe answers: a
   * success 200 `succeeded`; a decline 402 `card_declined` whose body carries the PaymentIntent
   * (`requires_payment_method`, `last_payment_error`); a card asking for authentication, off-session,
   * 402 `authentication_required` the same way (the customer must come back to pay), on-session
   * 200 `requires_action`.
   */
  createIntent(params: {
    amount: number;
    currency: string;
    customer: string | null;
    paymentMethod: string | null;
    confirm: boolean;
    offSession: boolean;
    metadata: Metadata;
  }): PaymentIntent {
    if (params.customer !== null && !this.customers.has(params.customer))
      throw new StripeApiError(400, 'invalid_request_error', `No such customer: '${params.customer}'`, 'resource_missing', 'customer');
    const method = params.paymentMethod === null ? undefined : this.paymentMethods.get(params.paymentMethod);
    if (params.paymentMethod !== null && !method)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `No such PaymentMethod: '${params.paymentMethod}'`,
        'resource_missing',
        'payment_method',
      );
    if (method && method.customer !== params.customer)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `The provided PaymentMethod ${method.id} was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.`,
        'payment_method_unexpected_state',
        'payment_method',
      );
    if (params.offSession && !params.confirm)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        '`off_session` can only be used when `confirm=true`.',
        'parameter_invalid_empty',
        'off_session',
      );
    const intent = this.newIntent({
      amount: params.amount,
      currency: params.currency,
      customer: params.customer,
      metadata: params.metadata,
      paymentMethod: method?.id ?? null,
      offSession: params.confirm ? params.offSession : null,
    });
    if (!params.confirm) return intent;
    if (!method)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        'You cannot confirm this PaymentIntent because it\u2019s missing a payment method.',
        'payment_intent_unexpected_state',
        'payment_method',
      );
    const card = this.cardsOnFile.get(method.id) ?? { brand: method.card.brand, last4: method.card.last4, outcome: 'succeeds' };
    if (card.outcome === 'declined' || card.outcome === 'saves_then_declines') this.refuse(intent, DECLINED, method);
    if (card.outcome === 'authentication') {
      if (params.offSession) this.refuse(intent, AUTHENTICATION_REQUIRED, method);
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk' };
      this.emit('payment_intent.requires_action', intent, false);
      return intent;
    }
    this.charge_(intent, card, false);
    return intent;
  }

  /** A confirm that failed: the PaymentIntent declined, and Stripe's 402 card error carrying it. */
  private refuse(intent: PaymentIntent, error: PaymentError, method: PaymentMethod): never {
    this.decline(intent, { ...error, payment_method: method }, false);
    throw new StripeApiError(402, 'card_error', error.message, error.code, undefined, {
      decline_code: error.decline_code,
      payment_intent: structuredClone(intent),
      payment_method: structuredClone(method),
      ...(intent.latest_charge ? { charge: intent.latest_charge } : {}),
    });
  }

  private decline(intent: PaymentIntent, error: PaymentError, hold: boolean): AttemptResult {
    intent.status = 'requires_payment_method';
    intent.next_action = null;
    intent.last_payment_error = error;
    this.emit('payment_intent.payment_failed', intent, hold);
    return { kind: 'declined', error };
  }

  /** The session paid (or its card saved): complete, its page gone, `checkout.session.completed`. */
  private complete(session: CheckoutSession, hold: boolean): void {
    session.status = 'complete';
    if (session.mode === 'payment') session.payment_status = 'paid';
    session.url = null;
    this.emit('checkout.session.completed', session, hold);
  }

  /** The PaymentIntent paid by `card`: its charge, `charge.succeeded` and `payment_intent.succeeded`. */
  private charge_(intent: PaymentIntent, card: CardOnFile, hold: boolean): void {
    const charge: Charge = {
      id: idOf('ch'),
      object: 'charge',
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: intent.id,
      metadata: intent.metadata,
      paid: true,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      payment_method_details: { type: 'card', card: { brand: card.brand, last4: card.last4 } },
      created: nowSeconds(),
      livemode: false,
    };
    this.charges.set(charge.id, charge);
    intent.status = 'succeeded';
    intent.next_action = null;
    intent.amount_received = intent.amount;
    intent.latest_charge = charge.id;
    intent.last_payment_error = null;
    this.emit('charge.succeeded', charge, hold);
    this.emit('payment_intent.succeeded', intent, hold);
    if (card.outcome === 'dispute') this.disputeSoon(charge);
  }

  /** Timers of disputes still to come, cleared when the server closes. */
  readonly timers = new Set<NodeJS.Timeout>();
  private disputeSoon(charge: Charge): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      charge.disputed = true;
      const dispute: Dispute = {
        id: idOf('dp'),
        object: 'dispute',
        amount: charge.amount,
        charge: charge.id,
        currency: charge.currency,
        payment_intent: charge.payment_intent,
        reason: 'fraudulent',
        status: 'needs_response',
        created: nowSeconds(),
        livemode: false,
      };
      this.emit('charge.dispute.created', dispute, false);
    }, 1_000);
    this.timers.add(timer);
  }

  refund(params: { paymentIntent: string; amount?: number }): Refund {
    const intent = this.intents.get(params.paymentIntent);
    if (!intent)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `No such payment_intent: '${params.paymentIntent}'`,
        'resource_missing',
        'payment_intent',
      );
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (!charge || intent.status !== 'succeeded')
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
        'charge_not_refundable',
        'payment_intent',
      );
    const left = charge.amount - charge.amount_refunded;
    if (left === 0)
      throw new StripeApiError(400, 'invalid_request_error', `Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
    const amount = params.amount ?? left;
    if (!Number.isInteger(amount) || amount < 1 || amount > left)
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        'amount_too_large',
        'amount',
      );
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    const refund: Refund = {
      id: idOf('re'),
      object: 'refund',
      amount,
      charge: charge.id,
      currency: charge.currency,
      payment_intent: intent.id,
      status: 'succeeded',
      created: nowSeconds(),
    };
    this.emit('charge.refunded', charge, false);
    return refund;
  }

  /** `GET /v1/events`: newest first, filtered, one page. */
  listEvents(query: { types?: readonly string[]; createdGte?: number; limit: number; startingAfter?: string }): {
    data: StripeEvent[];
    hasMore: boolean;
  } {
    const newestFirst = [...this.events].reverse();
    let start = 0;
    if (query.startingAfter !== undefined) {
      const at = newestFirst.findIndex((event) => event.id === query.startingAfter);
      if (at === -1)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          `No such event: '${query.startingAfter}'`,
          'resource_missing',
          'starting_after',
        );
      start = at + 1;
    }
    const { types, createdGte } = query;
    const matching = newestFirst
      .slice(start)
      .filter((event) => (types === undefined || types.includes(event.type)) && (createdGte === undefined || event.created >= createdGte));
    return { data: matching.slice(0, query.limit), hasMore: matching.length > query.limit };
  }
}
