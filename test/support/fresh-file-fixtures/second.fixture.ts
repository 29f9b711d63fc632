import { startsFresh } from './starts-fresh.ts';

startsFresh('second');
