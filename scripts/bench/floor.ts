/**
 * The floor of a request: the DynamoDB commands the route sent, sent again straight through a
 * bare DocumentClient (no middleware of ours, no JWT, no HTTP shape), wave by wave with the
 * same parallelism. What the route costs above its floor is the service's own overhead.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { documentClientOver } from '../../lib/db/client.ts';
import type { CommandLog } from '../../lib/db/round-trips.ts';

/** The DocumentClient command for each SDK command name the recorder sees. */
const DOCUMENT_COMMANDS: Record<string, new (input: any) => any> = {
  GetItemCommand: GetCommand,
  PutItemCommand: PutCommand,
  UpdateItemCommand: UpdateCommand,
  DeleteItemCommand: DeleteCommand,
  QueryCommand: QueryCommand,
  ScanCommand: ScanCommand,
  BatchGetItemCommand: BatchGetCommand,
  BatchWriteItemCommand: BatchWriteCommand,
  TransactGetItemsCommand: TransactGetCommand,
  TransactWriteItemsCommand: TransactWriteCommand,
};

/** A bare DocumentClient on the service's table, configured as lib/db/client.ts configures its own. */
export function bareClient(endpoint: string | undefined, region: string): DynamoDBDocumentClient {
  return documentClientOver(new DynamoDBClient({ region, ...(endpoint ? { endpoint } : {}) }));
}

export interface PlannedCommand {
  name: string;
  input: Record<string, unknown>;
  /** Indexes of the commands it is sent after (those the route had seen completed when it sent it). */
  after: number[];
}

/** One request's replay: its commands in the order the route sent them. */
export type FloorPlan = PlannedCommand[];

/** Replaces every occurrence of each key of `replacements` in the strings of `value` (deeply). */
export function substitute<T>(value: T, replacements: ReadonlyMap<string, string>): T {
  if (replacements.size === 0) return value;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      let text = node;
      for (const [from, to] of replacements) if (text.includes(from)) text = text.split(from).join(to);
      return text;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node instanceof Set) return new Set([...node].map(walk));
    if (node && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    }
    return node;
  };
  return walk(value) as T;
}

/** The floor plan of a recorded request, with `replacements` applied to every command input. */
export function floorPlan(log: CommandLog, replacements: Record<string, string>): FloorPlan {
  const map = new Map(Object.entries(replacements));
  return log.sent.map((command) => {
    if (!DOCUMENT_COMMANDS[command.name]) throw new Error(`the floor cannot replay ${command.name}: add it to DOCUMENT_COMMANDS`);
    return { name: command.name, input: substitute(command.input, map), after: command.after };
  });
}

/**
 * Sends a floor plan with the route's parallelism: each command as soon as the commands the
 * route had seen complete before sending it have completed here too.
 */
export async function sendFloor(client: DynamoDBDocumentClient, plan: FloorPlan): Promise<void> {
  const sent: Promise<unknown>[] = [];
  for (const command of plan) {
    const send = () => client.send(new DOCUMENT_COMMANDS[command.name]!(command.input));
    sent.push(command.after.length === 0 ? send() : Promise.all(command.after.map((index) => sent[index])).then(send));
  }
  await Promise.all(sent);
}

/** `UpdateItem+GetItem+GetItem | TransactWriteItems`: a request's commands, wave by wave (| = one more sequential round trip). */
export function signatureOf(log: CommandLog): string {
  const waves: string[][] = [];
  for (const command of log.sent) {
    const wave = waves[command.wave - 1] ?? [];
    wave.push(command.name.replace(/Command$/, ''));
    waves[command.wave - 1] = wave;
  }
  return waves.map((wave) => wave.join('+')).join(' | ');
}
