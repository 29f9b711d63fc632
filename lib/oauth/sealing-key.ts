/**
 * The OAuth sealing key: the HMAC key of what `/oauth/authorize` hands a browser to bring back,
 * and of nothing else.
 *
 * - **What it protects.** The consent ticket (the consent form's anti-forgery token, which names
 *   the person who signed in: lib/oauth/consent.ts), so whoever holds the key can approve a grant,
 *   an editor API key, in anyone's name; and the hosted sign-in's state cookie (the authorization
 *   request and its PKCE verifier while the person is at the user pool's page:
 *   lib/oauth/hosted-sign-in.ts). Refresh tokens do not depend on it: they are random and stored
 *   as hashes (lib/oauth/token.ts).
 * - **Where it lives.** Deployed, a Secrets Manager secret (`oauthSealingKey` in the route table)
 *   that only the authorize function may read, at run time through the Parameters and Secrets
 *   extension (OAUTH_SEALING_KEY_SECRET_ARN): never a value in a function's configuration, which
 *   more people and tools may read than may mint keys. Locally and in tests, the same JSON in
 *   OAUTH_SEALING_KEY (lib/config.ts `oauthSealingKeySource`).
 * - **Its value and rotation.** `{"kid":"k2","key":"<64 characters>","previous":[{"kid":"k1","key":"…"}]}`:
 *   values are sealed with the current key and name its kid; a kid in `previous` still opens, an
 *   unknown one never. Rotating ends nothing while the old key stays in `previous`; dropping it
 *   ends the tickets and sign-in states sealed with it (each lives 10 minutes: people in the middle
 *   of a consent start again). No OAuth connection ends with either (docs/deployment.md).
 *
 * A sealed value is `<kid>.<payload>.<HMAC-SHA256>` (base64url JSON payload). The MAC covers a
 * purpose beside the payload (`oauth-consent-ticket:<request>`, `oauth-sign-in-state`), so that no
 * value sealed for one use opens for another: a ticket is no sign-in state, and a ticket of one
 * authorization request is none of another's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { oauthSealingKeySource } from '../config.ts';
import { defined } from '../defined.ts';
import { logger } from '../log.ts';

/** What a kid may be: it is written into every sealed value, before its first dot. */
const KID = /^[A-Za-z0-9_-]{1,64}$/;
/** The shortest key accepted (the stack generates 64 characters). */
export const MIN_SEALING_KEY_LENGTH = 32;
/**
 * How long an instance keeps the secret's value before reading it again: a rotation reaches every
 * instance within this and the extension's own cache (300 s), without a read per request.
 */
export const SEALING_KEY_REREAD_MS = 60_000;

interface Keyring {
  kid: string;
  keys: ReadonlyMap<string, string>;
}

function entryOf(value: unknown, where: string): { kid: string; key: string } {
  const { kid, key } = (typeof value === 'object' && value !== null ? value : {}) as { kid?: unknown; key?: unknown };
  if (typeof kid !== 'string' || !KID.test(kid)) throw new Error(`${where}: kid must be 1 to 64 letters, digits, "_" or "-"`);
  if (typeof key !== 'string' || key.length < MIN_SEALING_KEY_LENGTH)
    throw new Error(`${where}: key must be a string of at least ${MIN_SEALING_KEY_LENGTH} characters`);
  return { kid, key };
}

/** The key's value, checked: an Error saying what is wrong with it (never saying the key). `label` names the secret. */
export function keyringOf(text: string, label = 'the OAuth sealing key'): Keyring {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${label} must be JSON: {"kid":"k1","key":"<64 characters>","previous":[…]}`);
  }
  const current = entryOf(value, label);
  const previous = (value as { previous?: unknown }).previous ?? [];
  if (!Array.isArray(previous)) throw new Error(`${label}: previous must be a list of {"kid","key"}`);
  const keys = new Map([[current.kid, current.key]]);
  previous.forEach((item: unknown, i) => {
    const entry = entryOf(item, `${label}: previous[${i}]`);
    if (keys.has(entry.kid)) throw new Error(`${label} names kid "${entry.kid}" twice`);
    keys.set(entry.kid, entry.key);
  });
  return { kid: current.kid, keys };
}

/** Where a sealing key is read from: its secret deployed, its JSON value locally and in tests. */
export type SealingKeySource = () => { secretArn: string } | { value: string };

/** What seals and opens with one key of its own (habit 19): each secret's module makes its own. */
export interface Sealer {
  seal(purpose: string, value: unknown): Promise<string>;
  open<T>(purpose: string, sealed: string): Promise<T | null>;
}

/** A sealer with the key `source` gives, `label` naming it in errors and logs. */
export function keyedSealer(label: string, source: SealingKeySource): Sealer {
  let local: { text: string; ring: Keyring } | undefined;
  let held: { ring: Keyring; readAt: number } | undefined;
  let reading: Promise<Keyring> | undefined;

  /** The secret's value through the extension; a key already held outlives a failed read. */
  async function readSecret(secretArn: string): Promise<Keyring> {
    try {
      const { secretString } = await import('../secrets-extension.ts');
      const text = await secretString(secretArn);
      if (!text) throw new Error(`${label} secret is empty`);
      const ring = keyringOf(text, label);
      held = { ring, readAt: Date.now() };
      return ring;
    } catch (error) {
      if (!held) throw error;
      // The key read before keeps sealing and opening (a failed read is tried again a minute later,
      // not at every request, each of which would wait for the extension's timeout).
      logger.warn(`${label} could not be read again: the one read before is kept`, { error: (error as Error).message });
      held = { ring: held.ring, readAt: Date.now() };
      return held.ring;
    }
  }

  async function keyring(): Promise<Keyring> {
    const from = source();
    if ('value' in from) {
      // Read per call, parsed once per value: a test (or a rotation drill) changes it in place.
      if (local?.text !== from.value) local = { text: from.value, ring: keyringOf(from.value, label) };
      return local.ring;
    }
    if (held && Date.now() - held.readAt < SEALING_KEY_REREAD_MS) return held.ring;
    reading ??= readSecret(from.secretArn).finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    async seal(purpose, value) {
      const { kid, keys } = await keyring();
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      const key = defined(keys.get(kid), `the current key of ${label}`);
      return `${kid}.${payload}.${macOf(key, purpose, kid, payload).toString('base64url')}`;
    },
    async open<T>(purpose: string, sealed: string): Promise<T | null> {
      const [kid = '', payload = '', given = '', ...rest] = sealed.split('.');
      if (rest.length > 0 || !KID.test(kid) || payload === '') return null;
      const key = (await keyring()).keys.get(kid);
      if (key === undefined) return null;
      const wanted = macOf(key, purpose, kid, payload);
      const givenBytes = Buffer.from(given, 'base64url');
      if (givenBytes.length !== wanted.length || !timingSafeEqual(givenBytes, wanted) || given !== wanted.toString('base64url'))
        return null;
      // The MAC says this service wrote the payload, from a value of the sealer's own shape.
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
    },
  };
}

const macOf = (key: string, purpose: string, kid: string, payload: string): Buffer =>
  createHmac('sha256', key).update(`${purpose}\n${kid}.${payload}`).digest();

const oauth = keyedSealer('the OAuth sealing key', oauthSealingKeySource);

/** `value` sealed for `purpose` with the current key. */
export const seal = (purpose: string, value: unknown): Promise<string> => oauth.seal(purpose, value);

/**
 * What `sealed` carries, when this service sealed it for `purpose` with a key it still holds; null
 * for anything else (malformed, another purpose, an unknown or dropped kid, a forged MAC).
 */
export const open = <T>(purpose: string, sealed: string): Promise<T | null> => oauth.open<T>(purpose, sealed);
