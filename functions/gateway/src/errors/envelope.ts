import { FlussError } from '@sluice/core/errors'
import { RETRY_AFTER_STATUSES } from './gateway-codes.js'
import { GatewayError } from './gateway-error.js'

/** The body of every error response: `{"error":{"code","message","request_id"}}`. */
export interface ErrorEnvelope {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly request_id: string
    /** Set when a write failed part-way: the row indexes the cluster acknowledged. */
    readonly acknowledged_rows?: readonly number[]
    readonly failed_rows?: readonly { index: number; code: string; message: string }[]
  }
}

export interface RenderedError {
  readonly status: number
  readonly body: ErrorEnvelope
  readonly headers: Record<string, string>
  /** True for failures that are the gateway's fault (logged with their cause). */
  readonly internal: boolean
}

const DEFAULT_RETRY_AFTER_SEC = 1

/**
 * Renders any thrown value: GatewayErrors keep their code, FlussErrors use the error table's
 * gateway code and status, anything else is a 500 `internal` whose message hides the cause.
 */
export function renderError(err: unknown, requestId: string): RenderedError {
  if (err instanceof GatewayError) {
    const partial = err.options.partialWrite
    const body: ErrorEnvelope = {
      error: {
        code: err.code,
        message: err.message,
        request_id: requestId,
        ...(partial === undefined
          ? {}
          : { acknowledged_rows: partial.acknowledgedRows, failed_rows: partial.failedRows }),
      },
    }
    const headers = { ...err.options.headers, ...retryAfter(err.status, err.options.retryAfterSec) }
    return {
      status: err.status,
      body,
      headers,
      internal: err.code === 'internal' && err.options.partialWrite === undefined,
    }
  }
  if (err instanceof FlussError) {
    const status = err.spec.http >= 400 ? err.spec.http : 500
    const code = err.spec.http >= 400 ? err.spec.gatewayCode : 'internal'
    const body = { error: { code, message: err.message, request_id: requestId } }
    return { status, body, headers: retryAfter(status), internal: code === 'internal' }
  }
  const body = { error: { code: 'internal', message: 'Internal gateway error.', request_id: requestId } }
  return { status: 500, body, headers: {}, internal: true }
}

function retryAfter(status: number, seconds?: number): Record<string, string> {
  if (!RETRY_AFTER_STATUSES.has(status)) return {}
  return { 'retry-after': String(Math.max(1, Math.ceil(seconds ?? DEFAULT_RETRY_AFTER_SEC))) }
}

/** The gateway code, status and message any thrown value maps to (for per-row failures). */
export function errorCodeOf(err: unknown): {
  code: string
  status: number
  message: string
  retryAfterSec?: number
} {
  if (err instanceof FlussError && err.spec.http >= 400) {
    return { code: err.spec.gatewayCode, status: err.spec.http, message: err.message }
  }
  if (err instanceof GatewayError) {
    return {
      code: err.code,
      status: err.status,
      message: err.message,
      ...(err.options.retryAfterSec === undefined ? {} : { retryAfterSec: err.options.retryAfterSec }),
    }
  }
  return { code: 'internal', status: 500, message: 'Internal gateway error.' }
}
