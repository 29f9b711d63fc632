/**
 * How `npm start` logs, decided before any module creates the logger (imported first by
 * scripts/start.ts): one short line per request (method, path, status, milliseconds) and only
 * warnings and errors as JSON, unless LOG_FORMAT=json asks for the service's own JSON lines, as
 * deployed. A LOG_LEVEL or POWERTOOLS_LOG_LEVEL set by hand wins either way.
 */
export const jsonLogs = process.env.LOG_FORMAT === 'json';
if (!jsonLogs) process.env.LOG_LEVEL ??= 'WARN';
