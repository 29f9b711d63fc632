/**
 * Auto-recharge and the saved card, as the console calls them. These routes follow the contract
 * (DESIGN.md, "Funding without an operator": "Auto-recharge", "The card") but are not in
 * openapi.json yet, so the typed client (api.ts) cannot name them: this module is the one place
 * that calls them by hand, with the same token, version header and error body as the typed client.
 * Once the routes are in the document, each function becomes `data(api.GET(…))` and these types
 * the generated ones; nothing else in the console changes.
 */
import { ApiError, apiBase, errorOf } from './api.ts';

export interface PaymentMethod {
  brand: string;
  last4: string;
}

export type DisabledReason = 'consecutive_failures' | 'dispute' | 'payment_method_removed';

export interface AutoRecharge {
  enabled: boolean;
  threshold: number | null;
  credits: number | null;
  monthly_cap: number | null;
  recharged_this_month: number;
  consecutive_failures: number;
  disabled_reason: DisabledReason | null;
  last_recharge_at: string | null;
  next_attempt_at: string | null;
  payment_method: PaymentMethod | null;
}

/** `PUT …/auto-recharge`: `enabled` required; the three amounts required when enabled, kept when omitted with `enabled: false`. */
export type AutoRechargeSettings =
  | { enabled: true; threshold: number; credits: number; monthly_cap: number }
  | { enabled: false; threshold?: number; credits?: number; monthly_cap?: number };

export interface CardCheckout {
  checkout_url: string;
  expires_at: string;
}

export interface FundingApi {
  autoRecharge(): Promise<AutoRecharge>;
  setAutoRecharge(settings: AutoRechargeSettings): Promise<AutoRecharge>;
  /** A Checkout Session (`mode: setup`) whose completion saves the organization's one card. */
  saveCard(): Promise<CardCheckout>;
  removeCard(): Promise<void>;
}

export function fundingApi(orgId: string, token: () => string, unauthorized: (error: ApiError) => void): FundingApi {
  const base = `${apiBase()}organizations/${encodeURIComponent(orgId)}/auto-recharge`;
  async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${token()}`,
        'Endless-Api-Version': '1',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const error = await errorOf(response);
      if (error.status === 401) unauthorized(error);
      throw error;
    }
    return (response.status === 204 ? undefined : await response.json()) as T;
  }
  return {
    autoRecharge: () => call<AutoRecharge>('GET', base),
    setAutoRecharge: (settings) => call<AutoRecharge>('PUT', base, settings),
    saveCard: () => call<CardCheckout>('POST', `${base}/payment-method`),
    removeCard: () => call<void>('DELETE', `${base}/payment-method`),
  };
}

/** A deployment without these routes yet (or without Stripe): the console says so instead of failing. */
export const fundingUnavailable = (error: unknown): boolean =>
  error instanceof ApiError && (error.code === 'route_not_found' || error.code === 'operation_not_enabled');
