/** The console's entry: the page (GET /console) loads this module, built by scripts/build-console.ts. */
// First: uPlot reads navigator.language as its module loads (locale.ts says why).
import './locale-guard.ts';
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { App } from './app.tsx';
import { takeInvitationFromAddress } from './invitation.ts';

// Before anything reads the address: an invitation's token leaves it at once.
takeInvitationFromAddress();

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
