import type { OperationDefinition } from '../catalog/shapes.ts';
import type { VendorSetup } from './vendor-key.ts';

export interface ProviderRequest {
  operation: OperationDefinition;
  /** The validated input, defaults applied. */
  input: Record<string, unknown>;
  /** Aborted when the provider timeout elapses; providers pass it to their I/O. */
  signal: AbortSignal;
}

/**
 * What a provider's code does: run one operation. It returns output in our normalized shapes; the
 * caller validates it against the operation's output schema before anyone sees it.
 */
export interface ProviderRun {
  run(request: ProviderRequest): Promise<unknown>;
}

/** The configured provider as the run path sees it (lib/social/providers/index.ts). */
export interface SocialProvider extends ProviderRun {
  readonly name: string;
  /** How the API names it to clients (the 403 of an operation it does not serve). */
  readonly displayName: string;
  /** Its answers are generated sample data, not real data: runs say so (`Sample-Data: true`). */
  readonly sampleData: boolean;
  /** Whether this provider can run the operation; the others are neither listed nor run. */
  serves(operation: string): boolean;
}

/**
 * A provider, as the registry (lib/social/providers/index.ts) knows it: its module exports one of
 * these and the registry lists it. `settings` and `serves` run in every social function (the
 * listing and the quote ask `serves`); `create` only where an operation runs.
 */
export interface ProviderDescriptor<Settings = unknown> {
  /** The value of SOCIAL_PROVIDER that selects it. */
  readonly name: string;
  /**
   * How the API names it to clients (the listing's `provider`, the 403 of an operation it does not
   * serve, the OpenAPI `x-served-by`): the vendor, not the configuration's word for it (`http`).
   */
  readonly displayName: string;
  readonly sampleData: boolean;
  /** Its own settings, read from the environment once per cold start; throws naming the variable that is wrong. */
  settings(): Settings;
  serves(operation: string): boolean;
  /** Its code, built on the first run that needs it. */
  create(settings: Settings): Promise<ProviderRun>;
  /** A data vendor's: its key and base URL, which a deployment sets up (infra/stack.ts reads this). The sample providers have none. */
  readonly vendor?: VendorSetup;
  /**
   * Inputs `admin providers check` sends instead of the catalog's example, for the operations
   * whose example asks what this vendor's endpoint cannot take (an option it lacks).
   */
  readonly checkInputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** The upstream failed or answered something unusable; the run is refunded (500 upstream_failed). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly detail: { status?: number; code?: string } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The upstream says the account or item does not exist or is not public: refunded, 404. */
export class UpstreamNotFoundError extends UpstreamError {
  constructor(message: string, detail: { status?: number; code?: string } = {}) {
    super(message, detail);
    this.name = 'UpstreamNotFoundError';
  }
}
