import {
  Configuration,
  GATEWAY_CONNECT_RETRY_BACKOFF_INITIAL,
  GATEWAY_CONNECT_RETRY_BACKOFF_MAX,
} from '@sluice/core/config'
import { type Clock, SYSTEM_CLOCK } from '@sluice/core/util'
import {
  type APIGatewayProxyResult,
  type ApiGatewayRequestContextV2,
  handle,
  type LambdaContext,
  type LambdaEvent,
} from 'hono/aws-lambda'
import { createApp, type GatewayApp } from './app.js'
import { configuredAuthenticator } from './http/auth.js'
import { apiGatewayAuthenticator } from './http/lambda-auth.js'
import { REQUEST_ID_HEADER, requestIdFor } from './http/request-id.js'
import { BootOnce } from './lambda-boot.js'
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

export interface LambdaHandlerOptions {
  /** `gateway.connect.retry-backoff.*` are read from it (default: their defaults). */
  readonly config?: Configuration
  readonly logger?: Logger
  readonly clock?: Clock
}

type AppRunner = (event: LambdaEvent, context?: LambdaContext) => Promise<APIGatewayProxyResult>

/**
 * A Lambda handler for API Gateway HTTP API (payload 2.0) events over an app made once per
 * container by `boot()` (which connects the SDK), on demand, and reused by every later invocation.
 * Until the app is up, `GET /health` answers 200 and `GET /ready` answers 503 with Retry-After
 * (starting a connection attempt when none runs), without waiting for the connection. Any other
 * request waits for the running attempt, or starts one; a failed attempt answers 503 `unavailable`,
 * and requests during the retry backoff (`gateway.connect.retry-backoff.*`) answer 503 at once.
 */
export function lambdaHandler(
  boot: () => Promise<GatewayApp>,
  options: LambdaHandlerOptions = {},
): LambdaHandler {
  const clock = options.clock ?? SYSTEM_CLOCK
  const logger = options.logger ?? CONSOLE_LOGGER
  const config = options.config ?? Configuration.load({})
  const startedAtMs = clock.nowMs()
  const backoff = {
    initialMs: config.get(GATEWAY_CONNECT_RETRY_BACKOFF_INITIAL),
    maxMs: config.get(GATEWAY_CONNECT_RETRY_BACKOFF_MAX),
  }
  const app = new BootOnce<AppRunner>(
    () => boot().then(a => handle(a) as AppRunner),
    backoff,
    clock,
    (error, retryInMs) =>
      logger.error('gateway boot failed', { error: String(error), retry_in_ms: retryInMs }),
  )
  return async (event, context) => {
    const lambdaEvent = { ...event, body: event.body ?? null } as LambdaEvent
    const run = app.value
    if (run !== undefined) return run(lambdaEvent, context)
    const route = `${event.requestContext?.http?.method} ${event.rawPath}`
    if (route === 'GET /health') {
      return respond(event, 200, { status: 'ok', uptime_ms: Math.max(0, clock.nowMs() - startedAtMs) })
    }
    const attempt = app.start()
    if (route === 'GET /ready' || attempt === undefined) {
      attempt?.catch(() => {})
      return unavailable(event, app.booting ? undefined : app.lastError, app.retryAfterSec())
    }
    try {
      return (await attempt)(lambdaEvent, context)
    } catch (e) {
      return unavailable(event, e, app.retryAfterSec())
    }
  }
}

function respond(
  event: APIGatewayProxyEventV2,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  const requestId = requestIdFor(event.headers?.[REQUEST_ID_HEADER])
  const withId =
    typeof body === 'object' && body !== null && 'error' in body
      ? { error: { ...(body as { error: object }).error, request_id: requestId } }
      : body
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...headers },
    body: JSON.stringify(withId),
    isBase64Encoded: false,
  }
}

/** 503 `unavailable` with Retry-After: the gateway is connecting, or could not connect (`cause`). */
function unavailable(
  event: APIGatewayProxyEventV2,
  cause: unknown,
  retryAfterSec: number,
): APIGatewayProxyResult {
  const message =
    cause === undefined
      ? 'The gateway is starting: it is connecting to the cluster.'
      : `The gateway could not start: ${(cause as Error)?.message ?? String(cause)}`
  return respond(
    event,
    503,
    { error: { code: 'unavailable', message } },
    { 'retry-after': String(retryAfterSec) },
  )
}
