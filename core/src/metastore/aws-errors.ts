import { FlussError } from '../errors/index.js'

/**
 * Classifies errors thrown by the AWS SDK (v3) for the DynamoDB and S3 adapters, the only code that
 * sees SDK errors. Transient trouble (throttling, 5xx, network) becomes the retriable
 * STORAGE_EXCEPTION; everything else is left to the adapter to name.
 */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'LimitExceededException',
  'InternalServerError',
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
])

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
])

interface SdkErrorShape {
  name?: string
  code?: string
  message?: string
  $metadata?: { httpStatusCode?: number }
  $response?: { statusCode?: number }
}

export function sdkErrorName(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as SdkErrorShape).name : undefined
}

export function httpStatusOf(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined
  const s = e as SdkErrorShape
  return s.$metadata?.httpStatusCode ?? s.$response?.statusCode
}

/** Throttling, a 5xx, or no HTTP response at all (connection refused, reset, timed out). */
export function isTransientAwsError(e: unknown): boolean {
  const name = sdkErrorName(e)
  if (name !== undefined && TRANSIENT_NAMES.has(name)) return true
  const code = typeof e === 'object' && e !== null ? (e as SdkErrorShape).code : undefined
  if (code !== undefined && NETWORK_CODES.has(code)) return true
  const status = httpStatusOf(e)
  return status !== undefined && (status >= 500 || status === 429)
}

/**
 * A compact stand-in for an SDK error, used as `cause`: SDK errors hold the whole HTTP response
 * (sockets, agents), which floods logs when serialized.
 */
export function sdkCause(e: unknown): Error {
  if (!(e instanceof Error)) return new Error(String(e))
  const status = httpStatusOf(e)
  const requestId = (e as { $metadata?: { requestId?: string } }).$metadata?.requestId
  const cause = new Error(
    `${e.name}${status ? ` (HTTP ${status})` : ''}: ${e.message}${requestId ? ` [request ${requestId}]` : ''}`,
  )
  cause.name = e.name
  cause.stack = e.stack
  return cause
}

function describeSdkError(e: unknown): string {
  const name = sdkErrorName(e) ?? 'Error'
  const status = httpStatusOf(e)
  const msg = e instanceof Error ? e.message : String(e)
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${msg}`
}

export function storageException(what: string, e: unknown): FlussError {
  return new FlussError('STORAGE_EXCEPTION', `${what} failed: ${describeSdkError(e)}`, { cause: sdkCause(e) })
}

export function unexpectedAwsError(what: string, e: unknown): FlussError {
  return new FlussError('UNKNOWN_SERVER_ERROR', `${what} failed: ${describeSdkError(e)}`, {
    cause: sdkCause(e),
  })
}

/** A FlussError of the given name for an SDK error, with the compact cause. */
export function awsError(
  name: 'INVALID_REQUEST' | 'STORAGE_EXCEPTION' | 'INVALID_CONFIG_EXCEPTION' | 'LAKE_COMMIT_CONFLICT',
  message: string,
  e: unknown,
): FlussError {
  return new FlussError(name, `${message}: ${describeSdkError(e)}`, { cause: sdkCause(e) })
}
