/**
 * The MCP protocol versions this server speaks: the MCP SDK 1.32.2's list, copied (types.js
 * `SUPPORTED_PROTOCOL_VERSIONS`, `LATEST_PROTOCOL_VERSION`), since the SDK is no longer bundled.
 * test/mcp/schemas.unit.test.ts fails when the devDependency SDK's list differs: upgrading it
 * is then the moment to decide whether this server follows.
 */

export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Newest first, as the SDK lists them (its transport's 400 names them in this order). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

export const isSupportedVersion = (version: string): boolean => SUPPORTED_PROTOCOL_VERSIONS.includes(version);

/** `initialize`: the client's version when this server speaks it, otherwise the latest (the client then decides). */
export const negotiatedVersion = (requested: string): string => (isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION);
