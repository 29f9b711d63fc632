/**
 * Billing (owners, with a user's token; docs/funding.md): the balance; buying credits (a checkout
 * on Stripe's page, then the purchase followed until it is paid, also after Stripe sends the
 * person back to `#billing`); the purchases with their status; auto-recharge, its state and the
 * card it pays with; the grants with what remains of each and when it expires, and the debt.
 * Four requests to open (credits, purchases, auto-recharge, grants); a purchase being paid is
 * read until it settles, and a card being saved until it shows (purchasePollDelay).
 */
import { useEffect, useState } from 'preact/hooks';
import type { operations } from '../../../client/index.ts';
import { data } from '../api.ts';
import {
  CARD_FOLLOW_MS,
  cardBrand,
  disabledReasonText,
  formatCredits,
  formatMoney,
  formatNumber,
  formatTime,
  PURCHASE_FOLLOW_MS,
  type PurchaseStatus,
  parseWhole,
  purchasePollDelay,
  purchaseSettled,
} from '../model.ts';
import { ConfirmButton, ErrorNote, Field, LoadState, Notice, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

/** The purchase this tab sent to Stripe's page, to follow when the person comes back (per workspace). */
const followKey = (orgId: string) => `workspace-console:purchase:${orgId}`;
/** A card this tab went to save on Stripe's page: the one shown before it (JSON, `null` for none), per workspace. */
const cardKey = (orgId: string) => `workspace-console:card:${orgId}`;

type AutoRecharge = operations['getAutoRecharge']['responses'][200]['content']['application/json'];
type PaymentMethod = NonNullable<AutoRecharge['payment_method']>;

interface Pricing {
  unit_amount: number;
  currency: string;
  min_credits: number;
  max_credits: number;
}

export function BillingScreen() {
  const { api, orgId } = useWorkspace();
  const credits = useLoad(
    () => data(api.GET('/organizations/{organization_id}/credits', { params: { path: { organization_id: orgId } } })),
    [orgId],
  );
  const purchases = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/credit-purchases', {
          params: { path: { organization_id: orgId }, query: { limit: 10 } },
        }),
      ),
    [orgId],
  );
  const grants = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/credit-grants', { params: { path: { organization_id: orgId }, query: { limit: 25 } } }),
      ),
    [orgId],
  );
  const recharge = useLoad(
    () => data(api.GET('/organizations/{organization_id}/auto-recharge', { params: { path: { organization_id: orgId } } })),
    [orgId],
  );
  const [done, setDone] = useState<string | undefined>(undefined);

  // Once a purchase is paid, everything it changed: the balance, the list, the grants.
  const settled = (message: string) => {
    setDone(message);
    credits.reload();
    purchases.reload();
    grants.reload();
  };

  const pricing = purchases.value?.pricing;
  return (
    <section>
      <ScreenHeading>Billing</ScreenHeading>
      <div class="balance">
        <span class="muted">Balance</span>
        <strong data-testid="billing-balance">{credits.value ? formatCredits(credits.value.balance) : '…'}</strong>
      </div>
      <ErrorNote error={credits.error} />
      <FollowPurchase onSettled={settled} />
      <Notice text={done} />

      <h3>Buy credits</h3>
      <LoadState loaded={purchases} what="purchases" />
      {pricing ? <BuyCredits pricing={pricing} /> : null}

      <h3>Purchases</h3>
      {purchases.value ? <PurchaseList purchases={purchases.value.purchases} /> : null}

      <h3>Auto-recharge</h3>
      <AutoRechargeSection loaded={recharge} onChanged={recharge.reload} />

      <h3>Grants</h3>
      <p class="muted">Every credit added is a grant; charges draw the one that expires soonest first.</p>
      <LoadState loaded={grants} what="grants" />
      {grants.value ? <GrantList grants={grants.value.grants} debt={grants.value.debt} /> : null}
    </section>
  );
}

function BuyCredits({ pricing }: { pricing: Pricing }) {
  const { api, orgId } = useWorkspace();
  const [amount, setAmount] = useState(String(Math.max(pricing.min_credits, Math.min(5_000, pricing.max_credits))));
  const action = useAction();
  const parsed = parseWhole(amount, pricing.min_credits, pricing.max_credits);
  // One key per form as shown: a second press (or a retry after a lost answer) opens the same checkout.
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (!parsed.ok) throw new Error(`Credits: ${parsed.error}.`);
      const purchase = await data(
        api.POST('/organizations/{organization_id}/credit-purchases', {
          params: { path: { organization_id: orgId }, header: { 'Idempotency-Key': idempotencyKey } },
          body: { credits: parsed.value },
        }),
      );
      setIdempotencyKey(crypto.randomUUID());
      if (!purchase.checkout_url) throw new Error(`The purchase ${purchase.id} is ${purchase.status}: there is no checkout to pay.`);
      sessionStorage.setItem(followKey(orgId), purchase.id);
      // Stripe's page; it sends the person back to this screen (`success_url`), where the purchase is followed.
      window.location.assign(purchase.checkout_url);
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Buy credits">
      <div class="row">
        <Field
          label="Credits to buy"
          hint={`${formatNumber(pricing.min_credits)} to ${formatNumber(pricing.max_credits)}, at ${formatMoney(pricing.unit_amount, pricing.currency)} a credit`}
        >
          {(props) => <input {...props} inputMode="numeric" value={amount} onInput={(event) => setAmount(event.currentTarget.value)} />}
        </Field>
        {/* An output: read out as it changes (its implicit role is status). */}
        <output class="price" data-testid="price">
          {parsed.ok ? `Total ${formatMoney(parsed.value * pricing.unit_amount, pricing.currency)}` : parsed.error}
        </output>
      </div>
      <ErrorNote error={action.error} />
      <button type="submit" class="primary" disabled={action.busy || !parsed.ok}>
        Continue to payment
      </button>
      <p class="hint">You pay on Stripe's page, then come back here; the credits are added once the payment is confirmed.</p>
    </form>
  );
}

/** The purchase sent to Stripe's page from this tab, read until it settles (or for PURCHASE_FOLLOW_MS). */
function FollowPurchase({ onSettled }: { onSettled: (message: string) => void }) {
  const { api, orgId } = useWorkspace();
  const [purchaseId] = useState(() => sessionStorage.getItem(followKey(orgId)));
  const [state, setState] = useState<{ status: PurchaseStatus; credits: number; checkout_url: string | null } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [gaveUp, setGaveUp] = useState(false);
  useEffect(() => {
    if (!purchaseId) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const until = Date.now() + PURCHASE_FOLLOW_MS;
    let reads = 0;
    const read = async () => {
      reads += 1;
      try {
        const purchase = await data(
          api.GET('/organizations/{organization_id}/credit-purchases/{purchase_id}', {
            params: { path: { organization_id: orgId, purchase_id: purchaseId } },
          }),
        );
        if (!live) return;
        setState({ status: purchase.status, credits: purchase.credits, checkout_url: purchase.checkout_url });
        if (purchaseSettled(purchase.status)) {
          sessionStorage.removeItem(followKey(orgId));
          if (purchase.status === 'paid') onSettled(`Paid: ${formatCredits(purchase.credits)} added to the balance.`);
          return;
        }
      } catch (caught) {
        if (!live) return;
        setError(caught);
        sessionStorage.removeItem(followKey(orgId));
        return;
      }
      if (Date.now() >= until) {
        setGaveUp(true);
        return;
      }
      timer = setTimeout(() => void read(), purchasePollDelay(reads));
    };
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [purchaseId]);
  if (!purchaseId) return null;
  if (error) return <ErrorNote error={error} />;
  if (!state || state.status === 'paid') return null;
  const stop = () => {
    sessionStorage.removeItem(followKey(orgId));
    setGaveUp(true);
  };
  return (
    <div class="card following" role="status" data-testid="following">
      {state.status === 'open' || state.status === 'processing' ? (
        <>
          <p>
            Waiting for the payment of {formatCredits(state.credits)} ({purchaseId}) to be confirmed
            {gaveUp ? ': not yet. If you left the checkout without paying, pay it below or let it expire.' : '…'}
          </p>
          <div class="row">
            {state.checkout_url ? <a href={state.checkout_url}>Return to the checkout</a> : null}
            {gaveUp ? null : (
              <button type="button" onClick={stop}>
                Stop waiting
              </button>
            )}
          </div>
        </>
      ) : (
        <p>
          The purchase {purchaseId} is {state.status}: no credits were added.
        </p>
      )}
    </div>
  );
}

type Purchase = {
  id: string;
  source: 'checkout' | 'auto_recharge';
  status: PurchaseStatus;
  credits: number;
  amount: number;
  currency: string;
  checkout_url: string | null;
  failure: { code: string; decline_code: string | null; message: string } | null;
  reversed_credits: number;
  created_at: string;
  paid_at: string | null;
};

function PurchaseList({ purchases }: { purchases: readonly Purchase[] }) {
  if (purchases.length === 0) return <p>No purchases yet.</p>;
  return (
    <table class="data" data-testid="purchases">
      <caption class="visually-hidden">Purchases, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Credits</th>
          <th scope="col">Price</th>
          <th scope="col">Status</th>
          <th scope="col">Id</th>
        </tr>
      </thead>
      <tbody>
        {purchases.map((purchase) => (
          <tr key={purchase.id}>
            <td data-label="Created">{formatTime(purchase.created_at)}</td>
            <td data-label="Credits">
              {formatCredits(purchase.credits)}
              {purchase.source === 'auto_recharge' ? <span class="muted"> (auto-recharge)</span> : null}
              {purchase.reversed_credits > 0 ? <span class="muted"> ({formatNumber(purchase.reversed_credits)} taken back)</span> : null}
            </td>
            <td data-label="Price">{formatMoney(purchase.amount, purchase.currency)}</td>
            <td data-label="Status">
              <span class={`badge badge-${purchase.status}`}>{purchase.status}</span>
              {purchase.paid_at ? <span class="muted"> {formatTime(purchase.paid_at)}</span> : null}
              {purchase.failure ? <span class="muted"> {purchase.failure.message}</span> : null}
              {purchase.checkout_url ? (
                <>
                  {' '}
                  <a href={purchase.checkout_url}>Pay</a>
                </>
              ) : null}
            </td>
            <td data-label="Id">
              <code>{purchase.id}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Grant = {
  id: string;
  source: string;
  credits: number;
  remaining: number;
  status: string;
  expires_at: string | null;
  expired_credits: number;
  created_at: string;
};

const SOURCE_LABELS: Record<string, string> = {
  purchase: 'purchase',
  auto_recharge: 'auto-recharge',
  operator: 'added by the operator',
  promotional: 'promotional',
};

function GrantList({ grants, debt }: { grants: readonly Grant[]; debt: number }) {
  return (
    <>
      {debt > 0 ? (
        <p class="debt" data-testid="debt">
          Debt: {formatCredits(debt)} (taken back after being spent; the next credits added pay it first).
        </p>
      ) : null}
      {grants.length === 0 ? (
        <p>No grants yet.</p>
      ) : (
        <table class="data" data-testid="grants">
          <caption class="visually-hidden">Grants, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Added</th>
              <th scope="col">Source</th>
              <th scope="col">Remaining</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {grants.map((grant) => (
              <tr key={grant.id}>
                <td data-label="Added">{formatTime(grant.created_at)}</td>
                <td data-label="Source">{SOURCE_LABELS[grant.source] ?? grant.source}</td>
                <td data-label="Remaining">
                  {formatNumber(grant.remaining)} of {formatCredits(grant.credits)}
                </td>
                <td data-label="Status">
                  <span class={`badge badge-${grant.status}`}>{grant.status}</span>
                  {grant.expired_credits > 0 ? <span class="muted"> {formatNumber(grant.expired_credits)} lapsed</span> : null}
                </td>
                <td data-label="Expires">{grant.expires_at ? formatTime(grant.expires_at) : 'never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function AutoRechargeSection({
  loaded,
  onChanged,
}: {
  loaded: { value: AutoRecharge | undefined; error: unknown; loading: boolean };
  onChanged: () => void;
}) {
  if (!loaded.value) return <LoadState loaded={{ ...loaded, reload: onChanged }} what="auto-recharge" />;
  const state = loaded.value;
  const why = disabledReasonText(state.disabled_reason);
  return (
    <div data-testid="auto-recharge">
      <dl class="facts">
        <dt>State</dt>
        <dd data-testid="auto-recharge-state">
          {state.enabled
            ? `On: below ${formatCredits(state.threshold ?? 0)}, buy ${formatCredits(state.credits ?? 0)}, at most ${formatCredits(state.monthly_cap ?? 0)} a month`
            : `Off${why ? `: turned off because ${why}` : ''}`}
        </dd>
        <dt>This month</dt>
        <dd>
          {formatCredits(state.recharged_this_month)} recharged
          {state.consecutive_failures > 0 ? `, ${state.consecutive_failures} failed in a row` : ''}
        </dd>
        {state.last_recharge_at ? (
          <>
            <dt>Last recharge</dt>
            <dd>{formatTime(state.last_recharge_at)}</dd>
          </>
        ) : null}
        {state.next_attempt_at ? (
          <>
            <dt>Next attempt</dt>
            <dd>{formatTime(state.next_attempt_at)}</dd>
          </>
        ) : null}
      </dl>
      <Card state={state} onChanged={onChanged} />
      <AutoRechargeForm state={state} onChanged={onChanged} />
    </div>
  );
}

/** A card as its owner recognizes it: the brand and the last four digits (the dots are not read out). */
function CardName({ card }: { card: PaymentMethod }) {
  return (
    <>
      {cardBrand(card.brand)} <span aria-hidden="true">••••</span> {card.last4}
    </>
  );
}

function Card({ state, onChanged }: { state: AutoRecharge; onChanged: () => void }) {
  const { api, orgId } = useWorkspace();
  const action = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const path = { params: { path: { organization_id: orgId } } };
  const save = () =>
    void action.run(async () => {
      const checkout = await data(api.POST('/organizations/{organization_id}/auto-recharge/payment-method', path));
      sessionStorage.setItem(cardKey(orgId), JSON.stringify(state.payment_method));
      // Stripe's page saves the card, then sends the person back here (the same return as a purchase).
      window.location.assign(checkout.checkout_url);
    });
  const remove = () =>
    void action.run(async () => {
      await data(api.DELETE('/organizations/{organization_id}/auto-recharge/payment-method', path));
      setDone(state.enabled ? 'The card is removed, and auto-recharge with it.' : 'The card is removed.');
      onChanged();
    });
  return (
    <div class="card">
      <h4>Card</h4>
      <p data-testid="card">
        {state.payment_method ? (
          <CardName card={state.payment_method} />
        ) : (
          'No card saved: auto-recharge needs one. A card used for a purchase is not saved.'
        )}
      </p>
      <div class="row">
        <button type="button" onClick={save} disabled={action.busy}>
          {state.payment_method ? 'Replace the card' : 'Save a card'}
        </button>
        {state.payment_method ? (
          <ConfirmButton
            label="Remove the card"
            question={state.enabled ? 'Remove the card? Auto-recharge turns off with it.' : 'Remove the card?'}
            onConfirm={remove}
            busy={action.busy}
          />
        ) : null}
      </div>
      <FollowCard onChanged={onChanged} />
      <ErrorNote error={action.error} />
      <Notice text={done} />
    </div>
  );
}

/**
 * Back from saving a card on Stripe's page: the card is the organization's once Stripe's webhook
 * is handled (within seconds), so the saved card is read (purchasePollDelay) until it is another
 * than the one shown before leaving, for at most CARD_FOLLOW_MS; then the state is read again.
 */
function FollowCard({ onChanged }: { onChanged: () => void }) {
  const { api, orgId } = useWorkspace();
  const [before] = useState(() => sessionStorage.getItem(cardKey(orgId)));
  const [outcome, setOutcome] = useState<'waiting' | 'saved' | 'not yet' | undefined>(before === null ? undefined : 'waiting');
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (before === null) return;
    const previous = JSON.parse(before) as PaymentMethod | null;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const until = Date.now() + CARD_FOLLOW_MS;
    let reads = 0;
    const finish = (result: 'saved' | 'not yet') => {
      sessionStorage.removeItem(cardKey(orgId));
      setOutcome(result);
      onChanged();
    };
    const read = async () => {
      reads += 1;
      try {
        const { payment_method: card } = await data(
          api.GET('/organizations/{organization_id}/auto-recharge/payment-method', { params: { path: { organization_id: orgId } } }),
        );
        if (!live) return;
        if (card && (card.brand !== previous?.brand || card.last4 !== previous?.last4)) return finish('saved');
      } catch (caught) {
        if (!live) return;
        sessionStorage.removeItem(cardKey(orgId));
        setError(caught);
        return;
      }
      if (Date.now() >= until) return finish('not yet');
      timer = setTimeout(() => void read(), purchasePollDelay(reads));
    };
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [before]);
  if (error) return <ErrorNote error={error} />;
  if (outcome === 'waiting')
    return (
      <p class="muted" role="status" data-testid="following-card">
        Waiting for Stripe to confirm the card…
      </p>
    );
  if (outcome === 'saved') return <Notice text="The card is saved." />;
  if (outcome === 'not yet')
    return (
      <p role="status">
        {before === 'null'
          ? "No card was saved. If you left Stripe's page before saving one, save it again."
          : "No other card was saved: the one above is still used. If you left Stripe's page before saving another, replace it again."}
      </p>
    );
  return null;
}

function AutoRechargeForm({ state, onChanged }: { state: AutoRecharge; onChanged: () => void }) {
  const { api, orgId } = useWorkspace();
  const [enabled, setEnabled] = useState(state.enabled);
  const [threshold, setThreshold] = useState(state.threshold === null ? '' : String(state.threshold));
  const [credits, setCredits] = useState(state.credits === null ? '' : String(state.credits));
  const [cap, setCap] = useState(state.monthly_cap === null ? '' : String(state.monthly_cap));
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const put = (body: operations['putAutoRecharge']['requestBody']['content']['application/json']) =>
    data(api.PUT('/organizations/{organization_id}/auto-recharge', { params: { path: { organization_id: orgId } }, body }));
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (!enabled) {
        await put({ enabled: false });
        setDone('Auto-recharge is off.');
        onChanged();
        return;
      }
      const t = parseWhole(threshold, 0, 1_000_000);
      const c = parseWhole(credits, 1, 10_000_000);
      const m = parseWhole(cap, 1, 10_000_000);
      if (!t.ok) throw new Error(`Below: ${t.error}.`);
      if (!c.ok) throw new Error(`Buy: ${c.error}.`);
      if (!m.ok) throw new Error(`Monthly cap: ${m.error}.`);
      if (m.value < c.value) throw new Error('Monthly cap: at least the credits one recharge buys.');
      await put({ enabled: true, threshold: t.value, credits: c.value, monthly_cap: m.value });
      setDone('Auto-recharge is on.');
      onChanged();
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Auto-recharge settings">
      <h4>Settings</h4>
      {/* Without a card the API refuses to turn it on (409 payment_method_required): not offered. */}
      <label class="check">
        <input
          type="checkbox"
          checked={enabled}
          disabled={!state.payment_method && !enabled}
          onChange={(event) => setEnabled(event.currentTarget.checked)}
        />{' '}
        Recharge automatically
        {!state.payment_method && !enabled ? <span class="muted"> (save a card first to turn it on)</span> : null}
      </label>
      <div class="row">
        <Field label="When the balance falls below (credits)">
          {(props) => (
            <input
              {...props}
              inputMode="numeric"
              disabled={!enabled}
              value={threshold}
              onInput={(event) => setThreshold(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Buy (credits)">
          {(props) => (
            <input
              {...props}
              inputMode="numeric"
              disabled={!enabled}
              value={credits}
              onInput={(event) => setCredits(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="At most a month (credits)">
          {(props) => (
            <input {...props} inputMode="numeric" disabled={!enabled} value={cap} onInput={(event) => setCap(event.currentTarget.value)} />
          )}
        </Field>
      </div>
      <p class="hint">Charged to the saved card, at most one recharge an hour; three failures in a row turn it off.</p>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy || (!state.payment_method && !state.enabled)}>
        Save auto-recharge
      </button>
      <Notice text={done} />
    </form>
  );
}
