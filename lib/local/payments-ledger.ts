/**
 * The local payments server's objects (lib/local/payments-server.ts): customers, Checkout
 * Sessions, PaymentIntents, charges, refunds, disputes and the events they raise, in Stripe's
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
}

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  customer: string | null;
  status: 'requires_payment_method' | 'requires_action' | 'succeeded' | 'canceled';
  metadata: Metadata;
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
  mode: 'payment';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  customer: string | null;
  client_reference_id: string | null;
  metadata: Metadata;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string | null;
  url: string | null;
  expires_at: number;
  created: number;
  livemode: false;
}

export type StripeObject = Customer | PaymentIntent | Charge | Refund | Dispute | CheckoutSession;

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
  ) {
    super(message);
  }
}

export const API_VERSION = '2025-12-15.clover';

/** Stripe's test cards (https://docs.stripe.com/testing) and what each does to a payment. */
export type CardOutcome = 'succeeds' | 'declined' | 'authentication' | 'dispute';
export function outcomeOf(cardNumber: string): { outcome: CardOutcome; brand: string } {
  switch (cardNumber) {
    case '4242424242424242':
      return { outcome: 'succeeds', brand: 'visa' };
    case '4000000000000259':
      return { outcome: 'dispute', brand: 'visa' };
    case '4000002760003184':
      return { outcome: 'authentication', brand: 'visa' };
    default:
      // 0002 and 0341 (saved, then declined) and any other number: a generic decline.
      return { outcome: 'declined', brand: 'visa' };
  }
}

const DECLINED: PaymentError = {
  type: 'card_error',
  code: 'card_declined',
  decline_code: 'generic_decline',
  message: 'Your card was declined.',
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
  /** Newest last; listed newest first. */
  readonly events: StripeEvent[] = [];
  private readonly pendingCards = new Map<string, { brand: string; last4: string; outcome: CardOutcome }>();

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
    amount: number;
    currency: string;
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
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: params.amount,
      currency: params.currency,
      customer: params.customer,
      client_reference_id: params.clientReferenceId,
      metadata: params.metadata,
      payment_intent: null,
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
    const intent: PaymentIntent = {
      id: idOf('pi'),
      object: 'payment_intent',
      amount: session.amount_total,
      amount_received: 0,
      currency: session.currency,
      customer: session.customer,
      status: 'requires_payment_method',
      metadata: this.intentMetadata.get(session.id) ?? {},
      latest_charge: null,
      last_payment_error: null,
      created: nowSeconds(),
      livemode: false,
    };
    this.intents.set(intent.id, intent);
    session.payment_intent = intent.id;
    return intent;
  }

  /** A card submitted on the checkout page of an open session. */
  pay(session: CheckoutSession, cardNumber: string, hold: boolean): AttemptResult {
    const intent = this.intentOf(session);
    const { outcome, brand } = outcomeOf(cardNumber);
    const card = { brand, last4: cardNumber.slice(-4), outcome };
    if (outcome === 'declined') return this.decline(intent, hold);
    if (outcome === 'authentication') {
      intent.status = 'requires_action';
      this.pendingCards.set(intent.id, card);
      this.emit('payment_intent.requires_action', intent, hold);
      return { kind: 'authentication' };
    }
    this.succeed(session, intent, card, hold);
    return { kind: 'succeeded' };
  }

  /** The authentication page's answer for a payment that asked for it. */
  authenticate(session: CheckoutSession, complete: boolean, hold: boolean): AttemptResult | undefined {
    const intent = session.payment_intent ? this.intents.get(session.payment_intent) : undefined;
    const card = intent && this.pendingCards.get(intent.id);
    if (!intent || !card || intent.status !== 'requires_action') return undefined;
    this.pendingCards.delete(intent.id);
    if (!complete) return this.decline(intent, hold);
    this.succeed(session, intent, card, hold);
    return { kind: 'succeeded' };
  }

  private decline(intent: PaymentIntent, hold: boolean): AttemptResult {
    intent.status = 'requires_payment_method';
    intent.last_payment_error = DECLINED;
    this.emit('payment_intent.payment_failed', intent, hold);
    return { kind: 'declined', error: DECLINED };
  }

  private succeed(
    session: CheckoutSession,
    intent: PaymentIntent,
    card: { brand: string; last4: string; outcome: CardOutcome },
    hold: boolean,
  ): void {
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
    intent.amount_received = intent.amount;
    intent.latest_charge = charge.id;
    intent.last_payment_error = null;
    session.status = 'complete';
    session.payment_status = 'paid';
    session.url = null;
    this.emit('charge.succeeded', charge, hold);
    this.emit('payment_intent.succeeded', intent, hold);
    this.emit('checkout.session.completed', session, hold);
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
