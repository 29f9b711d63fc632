/**
 * Minimal structured logging to stdout/stderr (CloudWatch keeps one JSON object per line).
 * Never pass tokens, API keys or whole events here.
 */
export function logError(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  const detail =
    error instanceof Error ? { error: error.name, error_message: error.message, stack: error.stack } : { error: String(error) };
  console.error(JSON.stringify({ level: 'ERROR', message, ...fields, ...detail }));
}
