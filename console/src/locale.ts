/**
 * The language the page tells its libraries. uPlot makes `new Intl.NumberFormat(navigator.language)`
 * as its module loads, and a browser may report a tag Intl refuses: Chromium started under
 * `LANG=C` (or none) reports `en-US@posix`, and that throw left the console blank. The console's
 * own figures never use Intl (model.ts `formatNumber`); this keeps the libraries' from failing.
 */

/** `reported` if Intl takes it, else the tag without its `@` variant if Intl takes that, else `en-US`. */
export function usableLanguage(reported: string, accepts: (tag: string) => boolean): string {
  if (accepts(reported)) return reported;
  const base = reported.split('@')[0] ?? '';
  return base !== '' && accepts(base) ? base : 'en-US';
}

export const intlAccepts = (tag: string): boolean => {
  try {
    new Intl.NumberFormat(tag);
    return true;
  } catch {
    return false;
  }
};
