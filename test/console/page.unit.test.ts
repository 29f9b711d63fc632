/**
 * The console's page as its function builds it (lib/console/page.ts), its files' hashed names
 * (lib/console-assets.ts), and the first load's size: the console built as `npm run build:console`
 * builds it, held to 150 KB of JavaScript gzipped.
 */
import { describe, expect, it } from 'vitest';
import { buildConsole, CONSOLE_BUDGET_GZIP_BYTES } from '../../lib/console/build.ts';
import { consolePageHtml, consolePagePolicy, escapeHtml } from '../../lib/console/page.ts';
import { hashedName } from '../../lib/console-assets.ts';

describe('the console page', () => {
  it('links its hashed files relative to itself, with no inline script or style', () => {
    const html = consolePageHtml({ script: 'console.0123456789abcdef.js', styleSheet: 'console.fedcba9876543210.css' });
    expect(html).toContain('<script type="module" src="console/console.0123456789abcdef.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="console/console.fedcba9876543210.css">');
    expect(html).not.toMatch(/<script>|<style|style="/);
    expect(html).not.toContain('hosted-ui');
  });

  it('names the hosted UI when the stack has one, escaped as text, and lets the page call it', () => {
    const hostedUi = { url: 'https://pool.auth.eu-west-1.amazoncognito.com', clientId: 'abc"><script>' };
    const html = consolePageHtml({ script: 'a.js', styleSheet: 'a.css', hostedUi });
    expect(html).toContain('<meta name="hosted-ui" content="https://pool.auth.eu-west-1.amazoncognito.com">');
    expect(html).toContain('<meta name="hosted-ui-client" content="abc&#34;&#62;&#60;script&#62;">');
    expect(consolePagePolicy({ hostedUi })).toContain("connect-src 'self' https://pool.auth.eu-west-1.amazoncognito.com;");
    expect(consolePagePolicy({})).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(escapeHtml(`<img src=x onerror='alert(1)'>&`)).toBe('&#60;img src=x onerror=&#39;alert(1)&#39;&#62;&#38;');
  });

  it('names a file by its content', () => {
    expect(hashedName('console.js', 'a')).toBe('console.ca978112ca1bbdca.js');
    expect(hashedName('console.js', 'b')).not.toBe(hashedName('console.js', 'a'));
  });
});

describe('the console build', () => {
  it('is one script and one style sheet, the script within 150 KB gzipped', async () => {
    const files = await buildConsole({ write: false });
    const script = files.find((file) => file.name === 'console.js');
    expect(files.map((file) => file.name).sort()).toEqual(['console.css', 'console.js']);
    expect(script?.gzipBytes).toBeLessThanOrEqual(CONSOLE_BUDGET_GZIP_BYTES);
    // Nothing fetched from elsewhere at run time: no absolute URL of another host in the script.
    expect(new TextDecoder().decode(script?.content).match(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}/gi) ?? []).toEqual([]);
  });
});
