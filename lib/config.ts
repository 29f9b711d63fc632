/**
 * Runtime configuration, read once per cold start from the environment.
 * Every knob the service has is listed here, so docs/configuration.md has one place to mirror.
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
  providerTimeoutMs: 10_000,
  /** One DynamoDB call, SDK retries included; a hung table answers a JSON 500 within this. */
  dynamodbCallTimeoutMs: 4_000,
} as const;

function integer(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function optional(name: string): string | undefined {
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
  audience: string;
  jwksUri: string;
}

/** Separate from config(): the admin CLI uses the table but never verifies tokens. */
export function jwtConfig(): JwtConfig {
  return { issuer: required('JWT_ISSUER'), audience: required('JWT_AUDIENCE'), jwksUri: required('JWT_JWKS_URI') };
}

export interface SocialConfig {
  /** `sample` (local, deterministic) or `http` (ScrapeCreators). Required: no silent default. */
  provider: 'sample' | 'http';
  /** How long a provider call may take before it is abandoned and the charge refunded. */
  providerTimeoutMs: number;
  scrapeCreators: {
    baseUrl: string;
    /** The key itself (local use), or where to fetch it once per cold start (deployed). */
    apiKey: string | undefined;
    apiKeySecretArn: string | undefined;
  };
}

let cachedSocial: SocialConfig | undefined;

/**
 * Separate from config(): only the social functions need it. SOCIAL_PROVIDER must be set
 * (`npm start` sets `sample`; the stack sets `http`), so a deployment never serves sample data
 * by accident. PROVIDER_TIMEOUT_MS defaults to DEFAULTS.providerTimeoutMs, locally and deployed.
 */
export function socialConfig(): SocialConfig {
  if (!cachedSocial) {
    const provider = required('SOCIAL_PROVIDER');
    if (provider !== 'sample' && provider !== 'http') throw new Error(`SOCIAL_PROVIDER must be "sample" or "http", got "${provider}"`);
    const apiKey = optional('SCRAPECREATORS_API_KEY');
    const apiKeySecretArn = optional('SCRAPECREATORS_API_KEY_SECRET_ARN');
    if (provider === 'http' && !apiKey && !apiKeySecretArn) {
      throw new Error('SOCIAL_PROVIDER=http needs SCRAPECREATORS_API_KEY or SCRAPECREATORS_API_KEY_SECRET_ARN');
    }
    cachedSocial = {
      provider,
      providerTimeoutMs: integer('PROVIDER_TIMEOUT_MS', DEFAULTS.providerTimeoutMs),
      scrapeCreators: {
        baseUrl: (optional('SCRAPECREATORS_BASE_URL') ?? 'https://api.scrapecreators.com').replace(/\/+$/, ''),
        apiKey,
        apiKeySecretArn,
      },
    };
  }
  return cachedSocial;
}
