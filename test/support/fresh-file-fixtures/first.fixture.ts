import { startsFresh } from './starts-fresh.ts';

startsFresh('first');
