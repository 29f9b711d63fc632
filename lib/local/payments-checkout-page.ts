/**
 * The local payments server's hosted pages (docs/funding.md, "The checkout page"): the card form
 * of a Checkout Session, the declined page and the authentication page. Plain HTML with nothing
 * from elsewhere: no script, no style sheet, every value written as text.
 */

const asText = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${asText(title)}</title></head>
<body>
<main>
<h1>${asText(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** The amount as people read it: `12.34 USD` for 1234 minor units. */
const money = (amount: number, currency: string): string => `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;

/** A payment's page, or (no amount: a setup session) the page that saves a card for later payments. */
export function checkoutPage(session: { url: string; amount: number | null; currency: string | null }, notice?: string): string {
  const what = session.amount === null ? 'Save a card for later payments' : `Pay ${money(session.amount, session.currency ?? 'usd')}`;
  const form = `<p>${asText(what)}</p>
${notice === undefined ? '' : `<p role="alert">${asText(notice)}</p>`}
<form method="post" action="${asText(session.url)}">
<p><label>Card number <input name="card_number" inputmode="numeric" autocomplete="cc-number" required></label></p>
<p><label>Expiry month <input name="exp_month" inputmode="numeric" autocomplete="cc-exp-month" required></label></p>
<p><label>Expiry year <input name="exp_year" inputmode="numeric" autocomplete="cc-exp-year" required></label></p>
<p><label>CVC <input name="cvc" inputmode="numeric" autocomplete="cc-csc" required></label></p>
<p><label>Webhooks <select name="webhooks"><option value="send">send</option><option value="hold">hold (listed in events, never sent)</option></select></label></p>
<p><button type="submit">${session.amount === null ? 'Save card' : 'Pay'}</button></p>
</form>`;
  return page('Checkout (local payments server)', form);
}

export const declinedPage = (session: { url: string; amount: number | null; currency: string | null }, reason: string): string =>
  checkoutPage(session, `Your card was declined: ${reason}`);

export function authenticationPage(session: { url: string }, webhooks: string): string {
  const action = `${session.url}/authenticate`;
  return page(
    'Authenticate this payment',
    `<p>Your bank asks you to confirm this payment.</p>
<form method="post" action="${asText(action)}">
<input type="hidden" name="webhooks" value="${asText(webhooks)}">
<p><button type="submit" name="outcome" value="complete">Complete</button>
<button type="submit" name="outcome" value="fail">Fail</button></p>
</form>`,
  );
}

export const messagePage = (title: string, message: string): string => page(title, `<p>${asText(message)}</p>`);

/** What a card form must hold, or the field that is wrong. */
export function readCardForm(form: URLSearchParams, now = new Date()): { cardNumber: string; hold: boolean } | { invalid: string } {
  const cardNumber = (form.get('card_number') ?? '').replace(/ /g, '');
  if (!/^\d{12,19}$/.test(cardNumber)) return { invalid: 'card_number' };
  const month = form.get('exp_month') ?? '';
  if (!/^\d{1,2}$/.test(month) || Number(month) < 1 || Number(month) > 12) return { invalid: 'exp_month' };
  const yearText = form.get('exp_year') ?? '';
  if (!/^(\d{2}|\d{4})$/.test(yearText)) return { invalid: 'exp_year' };
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  const thisYear = now.getUTCFullYear();
  if (year < thisYear || (year === thisYear && Number(month) < now.getUTCMonth() + 1)) return { invalid: 'exp_year' };
  if (!/^\d{3,4}$/.test(form.get('cvc') ?? '')) return { invalid: 'cvc' };
  const webhooks = form.get('webhooks') ?? 'send';
  if (webhooks !== 'send' && webhooks !== 'hold') return { invalid: 'webhooks' };
  return { cardNumber, hold: webhooks === 'hold' };
}
