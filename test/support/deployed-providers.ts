/**
 * The deployed configuration of three providers on their stubs at 127.0.0.1 (ScrapeCreators,
 * TikHub, Facebook Scraper3): the stubs, and the environment that points SOCIAL_PROVIDER's
 * providers at them with their keys. For the failover test and `npm run bench:failover`.
 */
import { FACEBOOK_SCRAPER3_STUB_KEY, startFacebookScraper3Stub } from './facebook-scraper3-stub.ts';
import { STUB_KEY, startScrapeCreatorsStub } from './scrapecreators-stub.ts';
import { startTikHubStub, TIKHUB_STUB_KEY } from './tikhub-stub.ts';

export async function startDeployedProviders() {
  const [sc, tikhub, fbs3] = await Promise.all([startScrapeCreatorsStub(), startTikHubStub(), startFacebookScraper3Stub()]);
  return {
    sc,
    tikhub,
    fbs3,
    environment: {
      SOCIAL_PROVIDER: 'http,tikhub,facebook_scraper3',
      SCRAPECREATORS_BASE_URL: sc.baseUrl,
      SCRAPECREATORS_API_KEY: STUB_KEY,
      TIKHUB_BASE_URL: tikhub.baseUrl,
      TIKHUB_API_KEY: TIKHUB_STUB_KEY,
      FACEBOOK_SCRAPER3_BASE_URL: fbs3.baseUrl,
      FACEBOOK_SCRAPER3_API_KEY: FACEBOOK_SCRAPER3_STUB_KEY,
    },
    close: () => Promise.all([sc.close(), tikhub.close(), fbs3.close()]).then(() => undefined),
  };
}
