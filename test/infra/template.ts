/**
 * Readers of a synthesized template, for the stack tests: they follow the references the way
 * CloudFormation does (route → integration → function → role → policies) and throw, naming
 * what is missing, when a link is not there.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { type Route, routeKey } from '../../lib/routes.ts';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
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
