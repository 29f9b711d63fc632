/**
 * The API as the console calls it: the typed client (client/index.ts, types generated from
 * openapi.json) with the signed-in person's token, on this page's own origin. An error answer
 * becomes an ApiError carrying the API's code and message; a 401 also ends the session (the token
 * expired or was revoked), which takes the person back to sign-in with the API's reason.
 */
import { createWorkspaceClient, type WorkspaceClient } from '../../client/index.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly data: Record<string, unknown> | undefined,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

/** The API's base URL: this page's folder (`/console` → `/`), so a stage or base path carries over. */
export const apiBase = (): string => new URL('.', window.location.href).href;

export type Api = WorkspaceClient;

export function createApi(token: () => string, onUnauthorized: (error: ApiError) => void): Api {
  const client = createWorkspaceClient({ baseUrl: apiBase(), token });
  client.use({
    async onResponse({ response }) {
      if (response.status === 401) onUnauthorized(await errorOf(response.clone()));
      return response;
    },
  });
  return client;
}

/** The documented error body (`{ code, message, data?, request_id }`), or what can be said without one. */
export async function errorOf(response: Response): Promise<ApiError> {
  let body: { code?: unknown; message?: unknown; data?: unknown; request_id?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status says what there is to say.
  }
  return new ApiError(
    response.status,
    typeof body.code === 'string' ? body.code : undefined,
    typeof body.message === 'string' ? body.message : `the service answered ${response.status}`,
    body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : undefined,
    typeof body.request_id === 'string' ? body.request_id : (response.headers.get('x-request-id') ?? undefined),
  );
}

/** The answer's data, or its error thrown as an ApiError. */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data: value, error, response } = await call;
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown; request_id?: unknown };
    throw new ApiError(
      response.status,
      typeof body.code === 'string' ? body.code : undefined,
      typeof body.message === 'string' ? body.message : `the service answered ${response.status}`,
      body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : undefined,
      typeof body.request_id === 'string' ? body.request_id : undefined,
    );
  }
  return value as T;
}

/** A CSV answer as text (`Accept: text/csv`), following `Link: rel="next"` when asked. */
export async function fetchText(url: string, token: string, accept: string): Promise<{ text: string; link: string | null }> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: accept, 'Endless-Api-Version': '1' } });
  if (!response.ok) throw await errorOf(response);
  return { text: await response.text(), link: response.headers.get('Link') };
}

/** Offers text as a file download (no navigation, no server round trip). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
