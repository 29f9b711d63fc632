/**
 * Readers of a synthesized template, for the stack tests: they follow the references the way
 * CloudFormation does (route → integration → function → role → policies) and throw, naming
 * what is missing, when a link is not there. A stack with nested stacks is read as one template
 * (stackTemplates, mergeNested): each nested stack's parameters replaced by the values the parent
 * passes, and the parent's reads of a nested stack's outputs by what they output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type Route, routeKey } from '../../lib/routes.ts';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
type TemplateJson = { Resources: Record<string, Resource>; Parameters?: Record<string, unknown>; Outputs?: Record<string, any> } & Record<
  string,
  any
>;

/** One template of a synthesized stack: the stack's own, or a nested stack's with its resource in the parent. */
export interface StackTemplate {
  /** The construct path: `WorkspaceService`, `WorkspaceService/BillingRoutes`. */
  path: string;
  json: TemplateJson;
  /** The nested stack's `AWS::CloudFormation::Stack` in the parent; none for the parent. */
  resourceId?: string;
}

/** The stack's template and each of its nested stacks' (one level deep), as `cdk synth` wrote them to `outdir`. */
export function stackTemplates(outdir: string, stack: Stack): StackTemplate[] {
  const read = (file: string): TemplateJson => JSON.parse(readFileSync(join(outdir, file), 'utf8'));
  const nested = stack.node.findAll().filter(NestedStack.isNestedStack);
  for (const child of nested) {
    if (child.nestedStackParent !== stack) throw new Error(`${child.node.path}: a nested stack inside a nested stack is not read`);
  }
  return [
    { path: stack.node.path, json: read(stack.templateFile) },
    ...nested.map((child) => ({
      path: child.node.path,
      json: read(child.templateFile),
      resourceId: stack.resolve(child.nestedStackResource!.logicalId) as string,
    })),
  ];
}

/** `value` with every object for which `replace` has an answer swapped for that answer, at any depth. */
function substitute(value: unknown, replace: (node: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, replace));
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const replacement = replace(node);
  if (replacement !== undefined) return replacement;
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, substitute(item, replace)]));
}

/**
 * The parent and its nested stacks as the one template CloudFormation makes of them: a nested
 * stack's `Ref` to one of its parameters becomes the value the parent passes (the table's ARN is
 * the parent's `Fn::GetAtt` of the table again), and the parent's `Fn::GetAtt` of a nested
 * stack's output becomes that output's value. The nested stacks' own resources take their place.
 * `stackOf` names the template each resource came from. Throws on a logical id in two templates.
 */
export function mergeNested(stacks: readonly StackTemplate[]): { template: Template; stackOf: Map<string, string> } {
  const [parent, ...nested] = stacks;
  if (!parent || parent.resourceId) throw new Error('the parent template comes first');
  const nestedIds = new Set(nested.map((child) => child.resourceId));
  const mappings: Record<string, unknown> = { ...parent.json.Mappings };
  const outputs = new Map<string, unknown>();
  const nestedJson = nested.map((child) => {
    const passed: Record<string, unknown> = parent.json.Resources[child.resourceId!]?.Properties.Parameters ?? {};
    const unpassed = Object.keys(child.json.Parameters ?? {}).filter((name) => !(name in passed));
    if (unpassed.length > 0) throw new Error(`${child.path}: parameters the parent does not pass: ${unpassed.join(', ')}`);
    const json = substitute(child.json, (node) =>
      Object.keys(node).length === 1 && typeof node.Ref === 'string' ? passed[node.Ref] : undefined,
    ) as TemplateJson;
    for (const [name, output] of Object.entries(json.Outputs ?? {})) outputs.set(`${child.resourceId}.Outputs.${name}`, output.Value);
    for (const [name, mapping] of Object.entries(json.Mappings ?? {})) {
      if (name in mappings && JSON.stringify(mappings[name]) !== JSON.stringify(mapping)) throw new Error(`mapping ${name} differs`);
      mappings[name] = mapping;
    }
    return { path: child.path, json };
  });
  const json = substitute(parent.json, (node) => {
    const getAtt = node['Fn::GetAtt'];
    if (Object.keys(node).length !== 1 || !Array.isArray(getAtt) || !nestedIds.has(getAtt[0])) return undefined;
    const key = `${getAtt[0]}.${getAtt[1]}`;
    if (!outputs.has(key)) throw new Error(`no nested stack output ${key}`);
    return outputs.get(key);
  }) as TemplateJson;

  const stackOf = new Map<string, string>();
  const resources: Record<string, Resource> = {};
  for (const { path, json: each } of [{ path: parent.path, json }, ...nestedJson]) {
    for (const [id, found] of Object.entries(each.Resources)) {
      if (nestedIds.has(id) && path === parent.path) continue;
      if (stackOf.has(id)) throw new Error(`${id} is in both ${stackOf.get(id)} and ${path}`);
      stackOf.set(id, path);
      resources[id] = found;
    }
  }
  return { template: Template.fromJSON({ ...json, Resources: resources, Mappings: mappings }), stackOf };
}
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const resources = (template: Template): Record<string, Resource> => template.toJSON().Resources;

function ofType(template: Template, type: string): [string, Resource][] {
  return Object.entries(resources(template)).filter(([, resource]) => resource.Type === type);
}

/** The logical id of the Lambda function API Gateway invokes for this route; throws if there is none. */
export function functionOf(template: Template, route: Route): string {
  const key = routeKey(route);
  const apiRoutes = ofType(template, 'AWS::ApiGatewayV2::Route').filter(([, resource]) => resource.Properties.RouteKey === key);
  if (apiRoutes.length !== 1) throw new Error(`route ${route.name}: expected one API route "${key}", found ${apiRoutes.length}`);
  const target = JSON.stringify(apiRoutes[0]![1].Properties.Target);
  const integrationId = /"Ref":"([^"]+)"/.exec(target)?.[1];
  const integration = integrationId ? resources(template)[integrationId] : undefined;
  if (integration?.Type !== 'AWS::ApiGatewayV2::Integration') throw new Error(`route ${route.name}: its target is not an integration`);
  const functionId = integration.Properties.IntegrationUri?.['Fn::GetAtt']?.[0] as string | undefined;
  if (!functionId || resources(template)[functionId]?.Type !== 'AWS::Lambda::Function') {
    throw new Error(`route ${route.name}: its integration does not invoke a Lambda function of the stack`);
  }
  return functionId;
}

export function resource(template: Template, logicalId: string): Resource {
  const found = resources(template)[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found;
}

/** Every statement of every policy attached to the function's role. */
export function statementsOf(template: Template, functionId: string): Statement[] {
  const roleId = resource(template, functionId).Properties.Role['Fn::GetAtt'][0] as string;
  return ofType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

export const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** Every statement of every IAM policy and role of the template (inline and attached). */
export function allStatements(template: Template): Statement[] {
  const policies = ofType(template, 'AWS::IAM::Policy').map(([, policy]) => policy.Properties.PolicyDocument);
  const inline = ofType(template, 'AWS::IAM::Role').flatMap(([, role]) =>
    ((role.Properties.Policies ?? []) as { PolicyDocument: unknown }[]).map((policy) => policy.PolicyDocument),
  );
  return [...policies, ...inline].flatMap((document) => (document as { Statement: Statement[] }).Statement);
}

/** Actions that grant every DynamoDB action (or every action at all). */
export const wildcardDynamoActions = (statements: Statement[]): string[] =>
  statements.flatMap(actionsOf).filter((action) => action === '*' || /^dynamodb:\*?$/i.test(action) || /^dynamodb:.*\*/i.test(action));

export { ofType };
