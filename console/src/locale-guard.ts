/**
 * Where Intl refuses the language the browser reports, the page reports the usable one instead (an
 * own property over Navigator's getter; locale.ts says why). A module of its own, imported first by
 * main.tsx, so that this runs before any library module is evaluated.
 */
import { intlAccepts, usableLanguage } from './locale.ts';

const language = usableLanguage(navigator.language, intlAccepts);
if (language !== navigator.language) Object.defineProperty(navigator, 'language', { value: language, configurable: true });
