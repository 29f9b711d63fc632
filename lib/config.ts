/**
 * Runtime configuration, read once per cold start from the environment.
 * Every knob the service has is listed here, so docs/configuration.md has one place to mirror.
 */

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
}

let cached: Config | undefined;

export function config(): Config {
  cached ??= {
    tableName: required('TABLE_NAME'),
    dynamodbEndpoint: optional('DYNAMODB_ENDPOINT'),
    region: optional('AWS_REGION') ?? 'us-east-1',
    rateLimit: {
      requests: integer('RATE_LIMIT_REQUESTS', 300),
      windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', 60),
    },
    restoreWindowDays: integer('RESTORE_WINDOW_DAYS', 30),
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
