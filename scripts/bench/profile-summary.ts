/**
 * `node --import tsx scripts/bench/profile-summary.ts <file.cpuprofile>`: where a `node
 * --cpu-prof` run of the bench spent its CPU, by package (node_modules/<package>) or by file of
 * ours, and the top functions. Time in Node's own code (node:internal, native calls such as an
 * RSA verification or JSON.stringify) is charged to the nearest caller that is a package or a
 * file of ours, so that "aws-jwt-verify" includes the signature check it asks Node for.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package or file a frame belongs to, or null for Node's own code and the VM's pseudo-frames. */
export function ownerOf(url: string): string | null {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/((?:lib|functions|scripts|test)\/.+?\.ts)/.exec(url);
  if (ours) return ours[1]!;
  return null;
}

export function summarize(profile: Profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    let node = byId.get(id);
    if (node?.callFrame.functionName === '(idle)') return;
    total += micros;
    const leaf = node;
    while (node && ownerOf(node.callFrame.url) === null && parent.has(node.id)) node = byId.get(parent.get(node.id)!);
    const owner = node ? (ownerOf(node.callFrame.url) ?? `(${leaf?.callFrame.functionName || 'program'})`) : '(unknown)';
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const name =
      node && ownerOf(node.callFrame.url) !== null
        ? `${node.callFrame.functionName || '(anonymous)'} ${owner}:${node.callFrame.lineNumber + 1}`
        : owner;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  });
  const top = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / total }));
  return { totalMs: total / 1000, owners: top(owners, 25), functions: top(functions, 30) };
}

if (import.meta.filename === process.argv[1]) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile>');
  const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const line = (entry: { name: string; ms: number; share: number }) =>
    `${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`;
  console.log(
    `CPU time sampled (idle excluded): ${summary.totalMs.toFixed(0)} ms\n\nBy package or file (Node's own code charged to its caller):`,
  );
  console.log(summary.owners.map(line).join('\n'));
  console.log('\nTop functions:');
  console.log(summary.functions.map(line).join('\n'));
}
