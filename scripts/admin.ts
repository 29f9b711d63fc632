/**
 * Admin CLI: `npm run --silent admin -- <command>` (`--help` lists the commands). The commands
 * live in scripts/admin/, one module per group; `npm run admin` runs a build of them cached by
 * source hash (scripts/admin-launcher.mjs), this file is the entry either way.
 */
import { main } from './admin/main.ts';

// Lambda runs Node 22; on the Node 20 of dev machines the SDK would warn on every call.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const code = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
// Exit once stdout is flushed, without waiting for the SDK's idle keep-alive sockets to close.
process.stdout.write('', () => process.exit(code));
