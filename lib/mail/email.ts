/**
 * Sending one email: Amazon SES's `SendEmail` (API v2), from the address the stack names
 * (`INVITATION_FROM_ADDRESS`, the parameter `InvitationFromAddress`). Deployed, SES's regional
 * endpoint; locally (`npm start`, the tests), `SES_ENDPOINT` names the local server's stand-in,
 * which speaks the same protocol and writes each message to the outbox
 * (lib/local/ses-outbox.ts): the function sends the same call either way, and the stand-in never
 * ships in a bundle. Only the functions that send carry this client.
 */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { config } from '../config.ts';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  /** SES message tags (names and values of letters, digits, `_` and `-`): what the message is about, never a secret. */
  tags: Record<string, string>;
}

/** The email could not be handed to SES (refused, unreachable, or the stack has no sender address). */
export class EmailNotSent extends Error {}

/** How long a send may take, retries included: SES answers in well under a second. */
const SEND_TIMEOUT_MS = 5_000;

let client: SESv2Client | undefined;

function sesClient(): SESv2Client {
  const endpoint = process.env.SES_ENDPOINT || undefined;
  client ??= new SESv2Client({
    region: config().region,
    ...(endpoint ? { endpoint } : {}),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: SEND_TIMEOUT_MS },
  });
  return client;
}

/** Sends one plain-text email; EmailNotSent when SES did not take it. */
export async function sendEmail(email: OutgoingEmail): Promise<{ messageId: string }> {
  const from = process.env.INVITATION_FROM_ADDRESS;
  if (!from) throw new EmailNotSent('no sender address: set INVITATION_FROM_ADDRESS (the stack parameter InvitationFromAddress)');
  try {
    const sent = await sesClient().send(
      new SendEmailCommand({
        FromEmailAddress: from,
        Destination: { ToAddresses: [email.to] },
        Content: {
          Simple: {
            Subject: { Data: email.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: email.text, Charset: 'UTF-8' } },
          },
        },
        EmailTags: Object.entries(email.tags).map(([Name, Value]) => ({ Name, Value })),
      }),
      { abortSignal: AbortSignal.timeout(SEND_TIMEOUT_MS) },
    );
    return { messageId: sent.MessageId ?? '' };
  } catch (error) {
    throw new EmailNotSent(`SES did not send the email: ${(error as Error).name}: ${(error as Error).message}`, { cause: error });
  }
}
