/**
 * Runtime configuration, read once per cold start from the environment.
 * Every knob the service has is listed here, so docs/configuration.md has one place to mirror,
 * but a data provider's own settings: each provider's module reads those, with the readers below
 * (lib/social/providers/, its descriptor's `settings`).
 */

/** The service's name in logs, metrics and traces (POWERTOOLS_SERVICE_NAME overrides it). */
export const SERVICE_NAME = 'workspace-service';
export const serviceName = (): string => process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;

/** The CloudWatch namespace of the service's own metrics (the stack's alarms and dashboard read it). */
export const METRICS_NAMESPACE = 'WorkspaceService';

/**
 * Every default, once: the local stack and the CDK stack's parameters both start from these.
 * The provider timeout stays well under API Gateway's 30 s so that a refund is written in time.
 */
export const DEFAULTS = {
  rateLimitRequests: 300,
  rateLimitWindowSeconds: 60,
  restoreWindowDays: 30,
  /** How long an audit event is kept (AUDIT_RETENTION_DAYS): 400 days, and never less (docs/audit.md). */
  auditRetentionDays: 400,
  providerTimeoutMs: 10_000,
  /** One DynamoDB call, SDK retries included; a hung table answers a JSON 500 within this. */
  dynamodbCallTimeoutMs: 4_000,
  /** The charge sweeper's period: the deployed schedule, and `npm start`'s (SWEEP_INTERVAL_SECONDS). */
  sweepIntervalSeconds: 60,
  /** What a 402 for exhausted credits tells the caller to do (CREDITS_HELP; the stack's CreditsHelp). */
  creditsHelp: 'ask an owner of this workspace to have credits added',
  /** Jobs queued or running at once per organization (JOBS_MAX_ACTIVE): 409 `job_limit_reached` beyond. */
  maxActiveJobs: 5,
  /** Items run at once by `npm start`'s embedded queue (JOBS_WORKER_CONCURRENCY); deployed, the worker's maxConcurrency × batch. */
  jobWorkerConcurrency: 8,
  /** How long a received message stays invisible before it is delivered again (JOBS_VISIBILITY_TIMEOUT_SECONDS; the SQS queue's). */
  jobVisibilityTimeoutSeconds: 60,
  /** The first webhook retry's delay; each next one doubles it (JOBS_WEBHOOK_BACKOFF_MS). */
  webhookBackoffMs: 30_000,
  /**
   * One webhook attempt's deadline, for the whole exchange (JOBS_WEBHOOK_TIMEOUT_MS): the address
   * check, connecting, the status and what is read of the body, however slowly a receiver sends.
   */
  webhookTimeoutMs: 10_000,
  /** Webhook attempts `npm start` makes at once (WEBHOOK_DELIVERY_CONCURRENCY); deployed, the delivery function's maxConcurrency × batch. */
  webhookDeliveryConcurrency: 32,
  /** Of those, at most this many for one organization (WEBHOOK_DELIVERIES_PER_ORGANIZATION): its slow receivers never take them all. */
  webhookDeliveriesPerOrganization: 4,
  /**
   * How old a job whose messages were never marked sent must be before the recovery takes it
   * for stalled (JOBS_STALLED_AFTER_SECONDS): well past the creating function's 25 s timeout
   * (lib/routes.ts FUNCTION_TIMEOUT_SECONDS), after which its creation cannot still be sending.
   */
  jobStalledAfterSeconds: 120,
  /** The recovery of stalled jobs' period: the deployed schedule, and `npm start`'s (JOBS_RECOVERY_INTERVAL_SECONDS). */
  jobRecoveryIntervalSeconds: 60,
  /** Characters of text an MCP tool result may hold (MCP_MAX_RESULT_CHARS): about 25,000 tokens, what MCP hosts allow a result. */
  mcpMaxResultChars: 100_000,
  /**
   * OAuth client registrations (and client ID metadata documents fetched) per source address and
   * hour (OAUTH_CLIENT_RATE_LIMIT): a client registers once per installation, so this only holds
   * back whoever fills the table with clients, or has the service fetch URLs for them.
   */
  oauthClientsPerAddressHour: 30,
  /** The grant expiry's period under `npm start` (GRANT_EXPIRY_INTERVAL_SECONDS); deployed, passes every 15 s of a minute's invocation. */
  grantExpiryIntervalSeconds: 10,
  /** The payments reconciler's period: the deployed schedule (every minute), and `npm start`'s (PAYMENTS_RECONCILE_INTERVAL_SECONDS). */
  paymentsReconcileIntervalSeconds: 60,
} as const;

/** The range of PURCHASED_CREDITS_EXPIRE_DAYS: a month to three years. */
export const PURCHASED_CREDITS_EXPIRE_DAYS_RANGE = { min: 30, max: 1095 } as const;

/**
 * How many days purchased credits last (PURCHASED_CREDITS_EXPIRE_DAYS, 30–1,095), or null: by
 * default they never expire (paid value should not lapse). Read by the purchases' settle when it
 * builds the grant (lib/billing/grants.ts `purchasedCreditsExpiry`).
 */
export function purchasedCreditsExpireDays(): number | null {
  const raw = process.env.PURCHASED_CREDITS_EXPIRE_DAYS;
  if (raw === undefined || raw === '') return null;
  const days = Number(raw);
  const { min, max } = PURCHASED_CREDITS_EXPIRE_DAYS_RANGE;
  if (!Number.isInteger(days) || days < min || days > max) {
    throw new Error(`PURCHASED_CREDITS_EXPIRE_DAYS must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return days;
}

/** The limit on OAuth client registrations and document fetches per source address, and its window. */
export const oauthClientRateLimit = (): { requests: number; windowSeconds: number } => ({
  requests: integer('OAUTH_CLIENT_RATE_LIMIT', DEFAULTS.oauthClientsPerAddressHour),
  windowSeconds: 3600,
});

/**
 * How long an audit event is kept, in days (AUDIT_RETENTION_DAYS): at least the default, 400; a
 * shorter setting is refused (every audited change then fails) rather than silently shortening
 * what owners were promised.
 */
export const auditRetentionDays = (): number => integer('AUDIT_RETENTION_DAYS', DEFAULTS.auditRetentionDays, DEFAULTS.auditRetentionDays);

/** The shortest JOBS_STALLED_AFTER_SECONDS accepted: more than twice the creating function's timeout. */
export const MIN_JOB_STALLED_AFTER_SECONDS = 60;

/** An integer setting: `fallback` when unset or empty; anything else below `min` or not an integer throws naming it. */
export function integer(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/** A setting, or undefined when unset or empty. */
export function optional(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function required(name: string): string {
  const value = optional(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

export interface Config {
  tableName: string;
  /** Set only for DynamoDB Local; deployed functions use the regional endpoint. */
  dynamodbEndpoint: string | undefined;
  region: string;
  rateLimit: { requests: number; windowSeconds: number };
  restoreWindowDays: number;
  /** How long one DynamoDB call may be waited for, retries included (also capped by the request's deadline). */
  dynamodbCallTimeoutMs: number;
}

let cached: Config | undefined;

export function config(): Config {
  cached ??= {
    tableName: required('TABLE_NAME'),
    dynamodbEndpoint: optional('DYNAMODB_ENDPOINT'),
    region: optional('AWS_REGION') ?? 'us-east-1',
    rateLimit: {
      requests: integer('RATE_LIMIT_REQUESTS', DEFAULTS.rateLimitRequests),
      windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', DEFAULTS.rateLimitWindowSeconds),
    },
    restoreWindowDays: integer('RESTORE_WINDOW_DAYS', DEFAULTS.restoreWindowDays),
    dynamodbCallTimeoutMs: integer('DYNAMODB_CALL_TIMEOUT_MS', DEFAULTS.dynamodbCallTimeoutMs, 100),
  };
  return cached;
}

export interface JwtConfig {
  issuer: string;
  /** Accepted `aud` values (ID tokens, and any token that carries an audience). */
  audiences: string[];
  /** Accepted `client_id` values of access tokens without `aud` (Cognito access tokens). */
  clientIds: string[];
  jwksUri: string;
}

/** A comma-separated list; blanks and empty entries dropped. */
function list(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * Separate from config(): the admin CLI uses the table but never verifies tokens.
 * JWT_AUDIENCE and JWT_CLIENT_IDS are both optional, but a deployment must accept some token.
 */
export function jwtConfig(): JwtConfig {
  const audiences = list('JWT_AUDIENCE');
  const clientIds = list('JWT_CLIENT_IDS');
  if (audiences.length === 0 && clientIds.length === 0) {
    throw new Error('set JWT_AUDIENCE (accepted aud values), JWT_CLIENT_IDS (accepted client_id values of access tokens), or both');
  }
  return { issuer: required('JWT_ISSUER'), audiences, clientIds, jwksUri: required('JWT_JWKS_URI') };
}

/** Shortest CURSOR_SIGNING_KEY accepted: 32 characters (the stack generates 64). */
const MIN_CURSOR_KEY_LENGTH = 32;

/**
 * The HMAC key of paging cursors and of nothing else (lib/signed-cursor.ts, lib/billing/cursor.ts):
 * a cursor guards no data, so the key may sit in a function's configuration. Deployed, the stack
 * generates it in Secrets Manager and resolves it into the environment at deploy time (no call at
 * run time); `npm start` derives one from its local signing key; tests set their own. Changing it
 * only invalidates the cursors in flight (their walks start again). What seals a credential has
 * its own key, read at run time (oauthSealingKeySource).
 */
export function cursorSigningKey(): string {
  const key = required('CURSOR_SIGNING_KEY');
  if (key.length < MIN_CURSOR_KEY_LENGTH) throw new Error(`CURSOR_SIGNING_KEY must be at least ${MIN_CURSOR_KEY_LENGTH} characters`);
  return key;
}

/**
 * Where the OAuth sealing key is read from (lib/oauth/sealing-key.ts, which says what it seals):
 * deployed, its Secrets Manager secret, by ARN (OAUTH_SEALING_KEY_SECRET_ARN, which the stack gives
 * the authorize function alone), read at run time; locally and in tests, the same JSON in
 * OAUTH_SEALING_KEY (`npm start` derives it from its local signing key). Both at once is refused: a
 * value in a deployed function's environment is what the secret is there to avoid.
 */
export function oauthSealingKeySource(): { secretArn: string } | { value: string } {
  const secretArn = optional('OAUTH_SEALING_KEY_SECRET_ARN');
  const value = optional('OAUTH_SEALING_KEY');
  if (secretArn && value) throw new Error('set OAUTH_SEALING_KEY_SECRET_ARN (deployed) or OAUTH_SEALING_KEY (local), not both');
  if (secretArn) return { secretArn };
  if (value) return { value };
  throw new Error('OAUTH_SEALING_KEY_SECRET_ARN (deployed) or OAUTH_SEALING_KEY (local) is not set');
}

/**
 * Where the MCP consent key is read from (lib/mcp/consent-token.ts, which says what it seals):
 * deployed, its own Secrets Manager secret by ARN (MCP_CONSENT_KEY_SECRET_ARN, which the stack
 * gives the MCP function alone), read at run time; locally and in tests, the same JSON in
 * MCP_CONSENT_KEY. Both at once is refused, as for the OAuth sealing key.
 */
export function mcpConsentKeySource(): { secretArn: string } | { value: string } {
  const secretArn = optional('MCP_CONSENT_KEY_SECRET_ARN');
  const value = optional('MCP_CONSENT_KEY');
  if (secretArn && value) throw new Error('set MCP_CONSENT_KEY_SECRET_ARN (deployed) or MCP_CONSENT_KEY (local), not both');
  if (secretArn) return { secretArn };
  if (value) return { value };
  throw new Error('MCP_CONSENT_KEY_SECRET_ARN (deployed) or MCP_CONSENT_KEY (local) is not set');
}

/**
 * Where Stripe's secret API key is read from (lib/billing/stripe-client.ts): deployed, its Secrets
 * Manager secret by ARN (STRIPE_SECRET_KEY_SECRET_ARN), read at run time; locally and in tests,
 * STRIPE_SECRET_KEY. Neither: this deployment sells no credits (403 `operation_not_enabled`).
 */
export function stripeSecretKeySource(): { secretArn: string } | { value: string } | undefined {
  const secretArn = optional('STRIPE_SECRET_KEY_SECRET_ARN');
  const value = optional('STRIPE_SECRET_KEY');
  if (secretArn && value) throw new Error('set STRIPE_SECRET_KEY_SECRET_ARN (deployed) or STRIPE_SECRET_KEY (local), not both');
  if (secretArn) return { secretArn };
  if (value) return { value };
  return undefined;
}

/**
 * Where the webhook's signing secrets are read from (lib/billing/webhook-secrets.ts): deployed, their
 * own Secrets Manager secret by ARN (STRIPE_WEBHOOK_SECRET_SECRET_ARN), read at run time; locally
 * and in tests, STRIPE_WEBHOOK_SECRET. Neither: the webhook answers 404.
 */
export function stripeWebhookSecretSource(): { secretArn: string } | { value: string } | undefined {
  const secretArn = optional('STRIPE_WEBHOOK_SECRET_SECRET_ARN');
  const value = optional('STRIPE_WEBHOOK_SECRET');
  if (secretArn && value) throw new Error('set STRIPE_WEBHOOK_SECRET_SECRET_ARN (deployed) or STRIPE_WEBHOOK_SECRET (local), not both');
  if (secretArn) return { secretArn };
  if (value) return { value };
  return undefined;
}

/** The payments API's base URL when it is not Stripe's own (STRIPE_API_BASE: `npm start`'s and the tests' local payments server). */
export const stripeApiBase = (): URL | undefined => {
  const base = optional('STRIPE_API_BASE');
  return base === undefined ? undefined : new URL(base);
};

export interface PurchaseConfig {
  minCredits: number;
  maxCredits: number;
  /** Minor units of `currency` per credit. */
  unitAmount: number;
  currency: string;
  /** How long a checkout stays open (Stripe's Checkout Sessions live 30 minutes to 24 hours). */
  checkoutMinutes: number;
}

/** What a credit costs and how many may be bought at once (docs/configuration.md). */
export function purchaseConfig(): PurchaseConfig {
  const minCredits = integer('PURCHASE_MIN_CREDITS', 500);
  const maxCredits = integer('PURCHASE_MAX_CREDITS', 100_000, minCredits);
  const checkoutMinutes = integer('PURCHASE_CHECKOUT_MINUTES', 1_440, 30);
  if (checkoutMinutes > 1_440) throw new Error(`PURCHASE_CHECKOUT_MINUTES must be at most 1440, got ${checkoutMinutes}`);
  const currency = optional('PURCHASE_CURRENCY') ?? 'usd';
  if (!/^[a-z]{3}$/.test(currency)) throw new Error(`PURCHASE_CURRENCY must be a lowercase ISO 4217 code, got "${currency}"`);
  return { minCredits, maxCredits, unitAmount: integer('PURCHASE_UNIT_AMOUNT', 1), currency, checkoutMinutes };
}

/** Origins allowed to call the API from a browser (CORS_ALLOWED_ORIGINS, comma-separated; none = CORS off). */
export const corsAllowedOrigins = (): string[] => list('CORS_ALLOWED_ORIGINS');

export interface SocialConfig {
  /**
   * The data provider's name: `sample` (local, deterministic) or `http` (ScrapeCreators), one of
   * the registry's (lib/social/providers/index.ts, which refuses any other). Required: no silent default.
   */
  provider: string;
  /** How long a provider call may take before it is abandoned and the charge refunded. */
  providerTimeoutMs: number;
}

let cachedSocial: SocialConfig | undefined;

/**
 * Separate from config(): only the social functions need it. SOCIAL_PROVIDER must be set
 * (`npm start` sets `sample`; the stack sets `http`), so a deployment never serves sample data
 * by accident. PROVIDER_TIMEOUT_MS defaults to DEFAULTS.providerTimeoutMs, locally and deployed.
 */
export function socialConfig(): SocialConfig {
  if (!cachedSocial) {
    cachedSocial = {
      provider: required('SOCIAL_PROVIDER'),
      providerTimeoutMs: integer('PROVIDER_TIMEOUT_MS', DEFAULTS.providerTimeoutMs),
    };
  }
  return cachedSocial;
}

/**
 * How credits are added in this deployment, as one sentence for a 402's message and `data`
 * (CREDITS_HELP: "ask your workspace owner", a URL, a support address). Read per call: it is one
 * environment variable, and errors are built where no config object is at hand.
 */
export const creditsHelp = (): string => optional('CREDITS_HELP') ?? DEFAULTS.creditsHelp;

/**
 * What signs API keys (lib/auth/issuing-signer.ts): deployed, an AWS KMS asymmetric key
 * (API_KEY_KMS_KEY_ID, set by the stack on the key-issuing function only); locally and in tests,
 * the dev key's PEM (API_KEY_SIGNING_KEY_PEM). Neither: this deployment issues no keys.
 */
export function apiKeySigning(): { kmsKeyId: string } | { privateKeyPem: string } | undefined {
  const kmsKeyId = optional('API_KEY_KMS_KEY_ID');
  if (kmsKeyId) return { kmsKeyId };
  const privateKeyPem = optional('API_KEY_SIGNING_KEY_PEM');
  return privateKeyPem ? { privateKeyPem } : undefined;
}

export interface JobsConfig {
  maxActiveJobs: number;
  /** Deployed: the SQS queue the items go to (JOBS_QUEUE_URL). Unset: the embedded in-process queue (npm start, tests). */
  queueUrl: string | undefined;
  workerConcurrency: number;
  visibilityTimeoutSeconds: number;
  /** A job whose messages were never marked sent is stalled once this old (also how long a recovery holds it). */
  stalledAfterSeconds: number;
}

/** Read per call (a handful of variables): tests and `npm start` set them before a job runs. */
export const jobsConfig = (): JobsConfig => ({
  maxActiveJobs: integer('JOBS_MAX_ACTIVE', DEFAULTS.maxActiveJobs),
  queueUrl: optional('JOBS_QUEUE_URL'),
  workerConcurrency: integer('JOBS_WORKER_CONCURRENCY', DEFAULTS.jobWorkerConcurrency),
  visibilityTimeoutSeconds: integer('JOBS_VISIBILITY_TIMEOUT_SECONDS', DEFAULTS.jobVisibilityTimeoutSeconds),
  stalledAfterSeconds: integer('JOBS_STALLED_AFTER_SECONDS', DEFAULTS.jobStalledAfterSeconds, MIN_JOB_STALLED_AFTER_SECONDS),
});

/** Webhook deliveries (lib/webhooks/): of jobs' ends, and of any other event. */
export interface WebhooksConfig {
  /** Deployed: the SQS queue deliveries go to (WEBHOOKS_QUEUE_URL). Unset: the embedded in-process queue (npm start, tests). */
  queueUrl: string | undefined;
  /** `http://127.0.0.1`, `http://localhost` and other loopback webhook URLs are accepted (JOBS_WEBHOOK_ALLOW_LOOPBACK=true: npm start, tests). */
  allowLoopback: boolean;
  backoffMs: number;
  timeoutMs: number;
  /** `npm start`'s delivery consumer: attempts at once, and at most this many of one organization. */
  concurrency: number;
  perOrganization: number;
}

/** Read per call, as jobsConfig. */
export const webhooksConfig = (): WebhooksConfig => ({
  queueUrl: optional('WEBHOOKS_QUEUE_URL'),
  allowLoopback: optional('JOBS_WEBHOOK_ALLOW_LOOPBACK') === 'true',
  backoffMs: integer('JOBS_WEBHOOK_BACKOFF_MS', DEFAULTS.webhookBackoffMs, 0),
  timeoutMs: integer('JOBS_WEBHOOK_TIMEOUT_MS', DEFAULTS.webhookTimeoutMs),
  concurrency: integer('WEBHOOK_DELIVERY_CONCURRENCY', DEFAULTS.webhookDeliveryConcurrency),
  perOrganization: integer('WEBHOOK_DELIVERIES_PER_ORGANIZATION', DEFAULTS.webhookDeliveriesPerOrganization),
});
/**
 * The smallest MCP_MAX_RESULT_CHARS accepted: room for any operation's output with its arrays
 * emptied and its strings shortened, and the note that says so (test/mcp/result-size.unit.test.ts).
 */
export const MIN_MCP_MAX_RESULT_CHARS = 10_000;

/** Read per call (one variable): tests set it before a call. */
export const mcpMaxResultChars = (): number => integer('MCP_MAX_RESULT_CHARS', DEFAULTS.mcpMaxResultChars, MIN_MCP_MAX_RESULT_CHARS);

/**
 * The console's sign-in with the stack's user pool (`-c userPool=true`): the hosted UI's base URL
 * (CONSOLE_HOSTED_UI_URL, `https://<domain>.auth.<region>.amazoncognito.com`) and the public app
 * client whose callbacks are the console and the OAuth consent screen (CONSOLE_CLIENT_ID), set by
 * the stack on those two functions only (lib/oauth/hosted-sign-in.ts). Unset (another issuer, or the local stack): the console offers no hosted sign-in.
 */
export function consoleHostedUi(): { url: string; clientId: string } | undefined {
  const url = optional('CONSOLE_HOSTED_UI_URL');
  const clientId = optional('CONSOLE_CLIENT_ID');
  if (!url || !clientId) return undefined;
  // http on loopback only: a stand-in of the hosted UI on 127.0.0.1 (test/oauth/hosted-sign-in.test.ts).
  if (!/^(https:\/\/[^/\s]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?)$/.test(url))
    throw new Error(`CONSOLE_HOSTED_UI_URL must be an https:// origin (or http on loopback), got "${url}"`);
  return { url, clientId };
}
