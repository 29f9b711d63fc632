/**
 * Where the examples find the API and a token: the local stack's .local/dev.json (`npm start`),
 * or WORKSPACE_API_URL, WORKSPACE_TOKEN and WORKSPACE_ORGANIZATION_ID for another stack.
 */
import { existsSync, readFileSync } from 'node:fs';

export function settings(): { baseUrl: string; token: string; organizationId: string } {
  const file = new URL('../.local/dev.json', import.meta.url);
  const dev = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const baseUrl = process.env.WORKSPACE_API_URL ?? dev.baseUrl;
  const token = process.env.WORKSPACE_TOKEN ?? dev.tokens?.owner;
  const organizationId = process.env.WORKSPACE_ORGANIZATION_ID ?? dev.organizationId;
  if (!baseUrl || !token || !organizationId) {
    throw new Error('start the local stack (npm start), or set WORKSPACE_API_URL, WORKSPACE_TOKEN and WORKSPACE_ORGANIZATION_ID');
  }
  return { baseUrl, token, organizationId };
}
