/**
 * The routes of one domain (one `tag` of the route table) in a CloudFormation nested stack of
 * their own: each route's function, role, policy and log group, and its API Gateway integration
 * and invoke permission. The API's routes themselves stay in the parent (apiRoute), beside the
 * table, the API and its stage, secrets, keys, queues, metrics and alarms: one stack of at most
 * 500 resources could not hold the next waves of routes (docs/deployment.md, "Nested stacks").
 */
import { NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { CfnRoute, type HttpApi, HttpIntegration, HttpIntegrationType, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { type Route, routeKey } from '../lib/routes.ts';
import { type RouteFunctionDeps, routeFunction } from './route-function.ts';

/**
 * The construct id of a domain's nested stack, from its tag: 'AI agents (MCP)' → 'AiAgentsMcpRoutes'.
 * It is part of every logical id and physical name inside: renaming a tag, or moving a route to
 * another tag, replaces the function and log group of each route it moves.
 */
export function routeStackId(tag: string): string {
  const words = tag.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `${words.map((word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase()).join('')}Routes`;
}

/** The route table by domain (nested stack id), each domain's routes in the table's order. */
export function routesByStack(table: readonly Route[]): Map<string, Route[]> {
  const byStack = new Map<string, Route[]>();
  for (const route of table) {
    const id = routeStackId(route.tag);
    byStack.set(id, [...(byStack.get(id) ?? []), route]);
  }
  return byStack;
}

export interface RouteStackProps {
  /** The domain's name (the routes' `tag`). */
  tag: string;
  routes: readonly Route[];
  api: HttpApi;
  deps: RouteFunctionDeps;
}

export class RouteStack extends NestedStack {
  readonly tag: string;
  /** The domain's functions by route name. */
  readonly functions = new Map<string, NodejsFunction>();
  /** The integration that invokes each route's function, by route name, for the parent's route. */
  readonly integrations = new Map<string, HttpIntegration>();

  constructor(scope: Construct, id: string, props: RouteStackProps) {
    super(scope, id, { description: `Workspace Service: the ${props.tag} routes' functions and integrations` });
    this.tag = props.tag;
    for (const route of props.routes) {
      const fn = routeFunction(this, route, props.deps);
      this.functions.set(route.name, fn);
      // What HttpLambdaIntegration makes, here rather than beside the route: payload format 2.0,
      // and API Gateway may invoke the function for this route's path only.
      this.integrations.set(
        route.name,
        new HttpIntegration(this, `${route.name}Integration`, {
          httpApi: props.api,
          integrationType: HttpIntegrationType.AWS_PROXY,
          integrationUri: fn.functionArn,
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
      );
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: Stack.of(this).formatArn({
          service: 'execute-api',
          resource: props.api.apiId,
          resourceName: `*/*${route.path === '$default' ? '' : route.path}`,
        }),
      });
    }
  }
}

/**
 * A route of the API, in the parent under the logical id HttpRoute gave it when every route was
 * in one stack (`<name>Route/Resource`). A route key is unique in an API and CloudFormation creates
 * before it deletes: a route recreated in a nested stack would be refused (409) while the old one
 * still stands. Kept here, a route is updated in place to its new integration, on the stack's move
 * to nested stacks as on a route's move to another domain.
 */
export function apiRoute(scope: Construct, api: HttpApi, route: Route, integration: HttpIntegration): CfnRoute {
  const holder = new Construct(scope, `${route.name}Route`);
  const cfnRoute = new CfnRoute(holder, 'Resource', {
    apiId: api.apiId,
    routeKey: routeKey(route),
    authorizationType: 'NONE',
    target: `integrations/${integration.integrationId}`,
  });
  Validations.of(holder).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      route.path === '$default'
        ? 'The catch-all route answers 404 route_not_found to anyone: there is nothing behind it to protect.'
        : 'The function verifies the bearer JWT itself (issuer, audience, JWKS) so that a 401 has the documented error body, headers and order of checks; an API Gateway authorizer would answer with its own body.',
  });
  return cfnRoute;
}
