import {
  type APIGatewayProxyResult,
  type ApiGatewayRequestContextV2,
  handle,
  type LambdaContext,
  type LambdaEvent,
} from 'hono/aws-lambda'
import { createApp, type GatewayApp } from './app.js'
import { renderError } from './errors/envelope.js'
import { configuredAuthenticator } from './http/auth.js'
import { apiGatewayAuthenticator } from './http/lambda-auth.js'
import { REQUEST_ID_HEADER, requestIdFor } from './http/request-id.js'
import { CONSOLE_LOGGER, type GatewayDeps, type Logger } from './types.js'

/** An API Gateway HTTP API event, payload format 2.0. */
export interface APIGatewayProxyEventV2 {
  readonly version: string
  readonly routeKey: string
  readonly rawPath: string
  readonly rawQueryString: string
  readonly headers: Record<string, string | undefined>
  readonly cookies?: string[]
  readonly body?: string | null
  readonly isBase64Encoded: boolean
  readonly requestContext: ApiGatewayRequestContextV2
  readonly pathParameters?: Record<string, string | undefined>
}

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context?: LambdaContext,
) => Promise<APIGatewayProxyResult>

/** The app of a Lambda container: principals come from API Gateway's authorizer context. */
export function createLambdaApp(deps: GatewayDeps): GatewayApp {
  return createApp({
    ...deps,
    authenticate: deps.authenticate ?? apiGatewayAuthenticator(configuredAuthenticator(deps.config)),
    securityScheme: {
      name: 'apiGatewayAuthorizer',
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: 'Checked by the HTTP API authorizer: AWS SigV4 (IAM) or a JWT bearer token.',
      },
    },
  })
}

/**
 * A Lambda handler for API Gateway HTTP API (payload 2.0) events over an app created once, on the
 * first invocation, from `boot()` (which connects the backend). A failed boot answers 503 with the
 * error envelope and is retried by the next invocation.
 */
export function lambdaHandler(
  boot: () => Promise<GatewayApp>,
  logger: Logger = CONSOLE_LOGGER,
): LambdaHandler {
  let booted:
    | Promise<(event: LambdaEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult>>
    | undefined
  return async (event, context) => {
    booted ??= boot().then(app => handle(app))
    let run: Awaited<typeof booted>
    try {
      run = await booted
    } catch (e) {
      booted = undefined
      return bootFailure(event, e, logger)
    }
    return run({ ...event, body: event.body ?? null } as LambdaEvent, context)
  }
}

function bootFailure(event: APIGatewayProxyEventV2, cause: unknown, logger: Logger): APIGatewayProxyResult {
  const requestId = requestIdFor(event.headers?.[REQUEST_ID_HEADER])
  const rendered = renderError(cause, requestId)
  const status = rendered.status >= 500 ? 503 : rendered.status
  const body = {
    error: {
      ...rendered.body.error,
      code: status === 503 ? 'unavailable' : rendered.body.error.code,
      message: `The gateway could not start: ${(cause as Error)?.message ?? String(cause)}`,
    },
  }
  logger.error('gateway boot failed', { request_id: requestId, error: String(cause) })
  return {
    statusCode: status,
    headers: {
      'content-type': 'application/json',
      [REQUEST_ID_HEADER]: requestId,
      ...(status === 503 ? { 'retry-after': '1' } : {}),
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  }
}
