import type { Configuration } from '@sluice/core/config'
import type { MetricRegistry } from '@sluice/core/metrics'
import type { Clock } from '@sluice/core/util'
import type { Context } from 'hono'
import type { GatewayBackend } from './backend/gateway-backend.js'
import type { IdempotencyStore } from './http/idempotency-store.js'
import type { GatewayLifecycle } from './lifecycle.js'
import type { GatewayLimits } from './limits.js'

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/** One JSON object per line on stdout/stderr (what CloudWatch and local terminals both read well). */
export const CONSOLE_LOGGER: Logger = {
  info: (message, fields) => console.log(JSON.stringify({ level: 'info', message, ...fields })),
  warn: (message, fields) => console.warn(JSON.stringify({ level: 'warn', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
}

export const SILENT_LOGGER: Logger = { info: () => {}, warn: () => {}, error: () => {} }

/** Who made a request, and how that was established. */
export interface Principal {
  readonly name: string
  readonly via: 'trust' | 'token' | 'password' | 'trusted-header' | 'aws-iam' | 'aws-jwt' | 'aws-lambda'
  /** JWT claims or Lambda authorizer context, when the API Gateway authorizer provided them. */
  readonly claims?: Readonly<Record<string, unknown>>
}

/** Establishes the principal of a request, or throws GatewayError('unauthenticated'). */
export type Authenticator = (c: Context<GatewayEnv>) => Principal

export interface GatewayDeps {
  readonly backend: GatewayBackend
  readonly config: Configuration
  readonly clock?: Clock
  readonly logger?: Logger
  /** Starting/ready/draining state for /ready; default: ready. */
  readonly lifecycle?: GatewayLifecycle
  /** Overrides of limits (mainly the read-side ones that have no config key yet). */
  readonly limits?: Partial<GatewayLimits>
  /** Replaces the configured authentication (the Lambda handler trusts API Gateway's authorizer). */
  readonly authenticate?: Authenticator
  /** Where Idempotency-Key results are kept; default: a bounded in-memory store. */
  readonly idempotencyStore?: IdempotencyStore
  /** Where request metrics are recorded (when `gateway.metrics.enabled`); none without it. */
  readonly metrics?: MetricRegistry
}

/** Per-request values the gateway's middleware sets. */
export interface GatewayVariables {
  requestId: string
  principal: Principal
  /** Aborted when the request's deadline passes. */
  signal: AbortSignal
}

export interface GatewayEnv {
  Variables: GatewayVariables
  // biome-ignore lint/suspicious/noExplicitAny: bindings differ by host (Node server, Lambda event)
  Bindings: any
}
