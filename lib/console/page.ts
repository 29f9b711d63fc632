/**
 * The console's HTML page and its Content-Security-Policy: pure text from the hashed file names
 * and the sign-in the deployment offers. No inline script or style at all, so the policy needs
 * neither a nonce nor a hash: scripts and styles from this origin only, requests to this origin
 * (and to the user pool's hosted UI, whose token endpoint the console calls), never framed.
 */

export interface ConsolePageInput {
  /** The hashed names of the script and the style sheet (`console.<hash>.js`). */
  script: string;
  styleSheet: string;
  /** The stack's user pool's hosted UI, when it has one (lib/config.ts `consoleHostedUi`). */
  hostedUi?: { url: string; clientId: string } | undefined;
}

/** Text in an HTML attribute or element: nothing of it is markup. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Relative URLs: the page works under any base path (a custom domain's mapping included). */
export function consolePageHtml(input: ConsolePageInput): string {
  const hosted = input.hostedUi
    ? `<meta name="hosted-ui" content="${escapeHtml(input.hostedUi.url)}">\n<meta name="hosted-ui-client" content="${escapeHtml(input.hostedUi.clientId)}">\n`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Workspace Service console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="console/${escapeHtml(input.styleSheet)}">
<script type="module" src="console/${escapeHtml(input.script)}"></script>
${hosted}</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

/**
 * Scripts and styles from this origin only (no 'unsafe-inline' for either: the chart and the UI
 * library set styles through the DOM, which a policy does not govern), requests to this origin and
 * the hosted UI's, no plugin, no base URL, no form posted anywhere, never in a frame.
 */
export function consolePagePolicy(input: Pick<ConsolePageInput, 'hostedUi'>): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${input.hostedUi ? ` ${input.hostedUi.url}` : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
