/** A module of its own so that its effect runs before any library module's: main.tsx imports it first. */
import { reportUsableLanguage } from './locale.ts';

reportUsableLanguage();
