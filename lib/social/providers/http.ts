import type { SocialProvider } from './types.ts';
import { UpstreamError } from './types.ts';

export function httpProvider(_options: { baseUrl: string; apiKey: () => Promise<string> }): SocialProvider {
  return {
    name: 'http',
    serves: () => false,
    async run() {
      throw new UpstreamError('not implemented');
    },
  };
}
