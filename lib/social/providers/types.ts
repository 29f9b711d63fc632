import type { OperationDefinition } from '../catalog/shapes.ts';

export interface ProviderRequest {
  operation: OperationDefinition;
  /** The validated input, defaults applied. */
  input: Record<string, unknown>;
  /** Aborted when the provider timeout elapses; providers pass it to their I/O. */
  signal: AbortSignal;
}

/**
 * Where operation output comes from. A provider returns output in our normalized shapes; the
 * caller validates it against the operation's output schema before anyone sees it.
 */
export interface SocialProvider {
  readonly name: 'sample' | 'http';
  /** Whether this provider can run the operation; the others are neither listed nor run. */
  serves(operation: string): boolean;
  run(request: ProviderRequest): Promise<unknown>;
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
