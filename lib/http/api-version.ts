import type { MiddlewareObj } from '@middy/core';
import { unsupportedApiVersion } from '../errors.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

const SERVED_MAJOR = 1;
const VERSION = /^(\d+)(?:\.(\d+))?$/;
/** The longest version header read (`maxLength` in the API description): `1.4` is 3 characters, the rest is room for spaces. */
export const MAX_VERSION_LENGTH = 32;

/** "1" and "1.0" name the same version; anything that is not MAJOR[.MINOR] (or is longer than MAX_VERSION_LENGTH) is null. */
export function parseVersion(value: string): { major: number; minor: number } | null {
  if (value.length > MAX_VERSION_LENGTH) return null;
  const match = VERSION.exec(value.trim());
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2] ?? 0) };
}

/** What to send instead of a value that is not a version at all (`1.0.0`, `v1`, or the header sent twice). */
function notAVersion(name: string, value: string): string {
  const shown = value.length > 32 ? `${value.slice(0, 32)}…` : value;
  if (value.includes(',')) return `${name} was sent more than once ("${shown}"); send it once, e.g. ${name}: ${SERVED_MAJOR}`;
  return `${name}: "${shown}" is not a version; send the major version (${SERVED_MAJOR}) or major.minor (${SERVED_MAJOR}.0), digits only`;
}

/**
 * `Endless-Api-Version` (alias `Service-Api-Version`) pins a major version. Absent means the
 * current one. Header names arrive lower-cased from API Gateway (and from the local adapter).
 */
export const apiVersion = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const headers = request.event.headers ?? {};
    const given = [
      ['Endless-Api-Version', headers['endless-api-version']],
      ['Service-Api-Version', headers['service-api-version']],
    ].filter((entry): entry is [string, string] => entry[1] !== undefined);
    const parsed = given.map(([name, value]) => ({ name, value, version: parseVersion(value) }));
    for (const { name, value, version } of parsed) {
      if (!version) throw unsupportedApiVersion(notAVersion(name, value));
      if (version.major !== SERVED_MAJOR) {
        throw unsupportedApiVersion(
          `${name}: major version ${version.major} cannot be served; this deployment serves major version ${SERVED_MAJOR}`,
        );
      }
    }
    const [first, second] = parsed;
    if (
      first?.version &&
      second?.version &&
      (first.version.major !== second.version.major || first.version.minor !== second.version.minor)
    ) {
      throw unsupportedApiVersion(`Endless-Api-Version and Service-Api-Version disagree ("${first.value}" vs "${second.value}")`);
    }
  },
});
