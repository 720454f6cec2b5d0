import type { Context } from 'hono'
import { GatewayError } from '../errors/gateway-error.js'
import type { Authenticator, GatewayEnv, Principal } from '../types.js'

interface AuthorizerContext {
  readonly iam?: { readonly userArn?: string; readonly callerId?: string }
  readonly jwt?: { readonly claims?: Record<string, unknown> }
  readonly lambda?: Record<string, unknown> | null
}

/** The authorizer block API Gateway (HTTP API, payload 2.0) put on the event, if any. */
function authorizerOf(c: Context<GatewayEnv>): AuthorizerContext | undefined {
  const env = c.env as { requestContext?: { authorizer?: AuthorizerContext } } | undefined
  return env?.requestContext?.authorizer ?? undefined
}

/**
 * In AWS the HTTP API's authorizer (IAM or JWT, wired by the CDK app) has already checked the
 * caller before the function runs, so the principal is read from its context: the IAM user/role
 * ARN, the JWT's `sub` (claims kept for routes), or a Lambda authorizer's `principalId`. Events
 * without an authorizer context (direct invocations, local tests) fall back to `fallback`.
 */
export function apiGatewayAuthenticator(fallback: Authenticator): Authenticator {
  return c => {
    const auth = authorizerOf(c)
    if (auth?.iam !== undefined) {
      const name = auth.iam.userArn ?? auth.iam.callerId
      if (name === undefined)
        throw new GatewayError('unauthenticated', 'The IAM authorizer context names no caller.')
      return { name, via: 'aws-iam' }
    }
    if (auth?.jwt !== undefined) {
      const claims = auth.jwt.claims ?? {}
      const sub = claims.sub ?? claims.client_id ?? claims.username
      if (typeof sub !== 'string' || sub === '')
        throw new GatewayError('unauthenticated', 'The JWT has no subject.')
      return { name: sub, via: 'aws-jwt', claims } satisfies Principal
    }
    if (auth?.lambda !== undefined && auth.lambda !== null) {
      const id = auth.lambda.principalId
      return {
        name: typeof id === 'string' && id !== '' ? id : 'lambda-authorized',
        via: 'aws-lambda',
        claims: auth.lambda,
      }
    }
    return fallback(c)
  }
}
