/**
 * instagram_user_stories on TikHub's Instagram-V3-API: `GET /api/v1/instagram/v3/get_user_stories`
 * (`username`), as TikHub's OpenAPI reference (V5.3.2, github.com/TikHubIO/TikHub-API-Python-SDK
 * spec/openapi.json, tag Instagram-V3-API) documents its answer: `data.reels_media[]` grouped by
 * user, each `{id, user{username, full_name, profile_pic_url}, items[]{id, pk, taken_at,
 * media_type (1 image, 2 video), image_versions2, video_versions, story_cta}}`. The image and video
 * lists are read as Instagram's app API gives them (`image_versions2.candidates[]{url}`,
 * `video_versions[]{url}`), as ScrapeCreators' story items are. No story live: an empty list.
 *
 * The reference gives no expiry field; a story lives 24 hours from `taken_at`, as it says.
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { author, media, post } from '../scrapecreators/output.ts';
import { bareHandle, iso, str } from '../scrapecreators/read.ts';
import { id, text } from '../scrapecreators/vendor-shapes.ts';
import { call, type TikHubMapping } from './mapping.ts';

const STORY_LIFETIME_MS = 24 * 3600 * 1000;

const user = () =>
  z.object({ pk: id(), username: z.string(), full_name: text(), profile_pic_url: text(), is_verified: z.nullish(z.boolean()) });
const item = () =>
  z.object({
    id: id(),
    pk: id(),
    taken_at: z.nullish(z.number()),
    media_type: z.nullish(z.number()),
    image_versions2: z.nullish(z.object({ candidates: z.nullish(z.array(z.object({ url: text() }))) })),
    video_versions: z.nullish(z.array(z.object({ url: text() }))),
    video_duration: z.nullish(z.number()),
  });
const reels = () => z.object({ reels_media: z.array(z.object({ id: id(), user: z.nullish(user()), items: z.array(item()) })) });
type Reels = z.output<ReturnType<typeof reels>>;

const expiry = (takenAt: number | null | undefined) => (typeof takenAt === 'number' ? iso(takenAt + STORY_LIFETIME_MS / 1000) : null);

export const instagram: Readonly<Record<string, TikHubMapping>> = {
  instagram_user_stories: call({
    path: '/api/v1/instagram/v3/get_user_stories',
    params: (input) => ({ username: bareHandle(input.handle) }),
    response: reels,
    translate: (data: Reels, input) => ({
      items: data.reels_media.flatMap((reel) => {
        const owner = reel.user;
        const username = owner?.username ?? bareHandle(input.handle);
        const by = author({
          id: owner?.pk ?? reel.id,
          username,
          display_name: owner?.full_name,
          avatar_url: owner?.profile_pic_url,
          url: PROFILE_URL.instagram(username),
          verified: owner?.is_verified,
        });
        return reel.items.map((story) => {
          const image = story.image_versions2?.candidates?.[0]?.url;
          const id = str(story.pk) ?? str(story.id);
          return {
            ...post({
              network: 'instagram',
              id,
              url: id ? `https://www.instagram.com/stories/${username}/${id}/` : null,
              type: 'story',
              author: by,
              created_at: story.taken_at,
              media: [
                story.media_type === 2
                  ? media('video', story.video_versions?.[0]?.url, { thumbnail: image, seconds: story.video_duration })
                  : media('image', image),
              ],
            }),
            expires_at: expiry(story.taken_at),
          };
        });
      }),
    }),
  }),
};
