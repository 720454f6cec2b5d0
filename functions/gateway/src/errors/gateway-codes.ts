import { ERRORS } from '@sluice/core/errors'

/**
 * The gateway's error codes and their HTTP statuses (Fluss gateway conventions). Codes that come
 * from a FlussError use the error table's `gatewayCode`/`http`; this table adds the codes that only
 * exist at the HTTP edge (wrong method, media type, limits) and fixes the status of every code.
 */
export const GATEWAY_CODES = {
  invalid_argument: 400,
  unauthenticated: 401,
  unauthorized: 403,
  not_found: 404,
  database_not_found: 404,
  table_not_found: 404,
  partition_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  already_exists: 409,
  failed_precondition: 409,
  database_already_exists: 409,
  table_already_exists: 409,
  partition_already_exists: 409,
  database_not_empty: 409,
  limit_exceeded: 413,
  unsupported_media_type: 415,
  resource_exhausted: 429,
  backend: 500,
  internal: 500,
  unsupported: 501,
  unavailable: 503,
  timeout: 504,
} as const

export type GatewayCode = keyof typeof GATEWAY_CODES

/** Statuses whose responses carry `Retry-After`. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503])

/** Every code an error envelope can carry: the gateway's own plus those of the error table. */
export function allErrorCodes(): string[] {
  const codes = new Set<string>(Object.keys(GATEWAY_CODES))
  for (const spec of Object.values(ERRORS)) if (spec.http >= 400) codes.add(spec.gatewayCode)
  return [...codes].sort()
}

/** Every status an error envelope can be sent with. */
export function allErrorStatuses(): number[] {
  const statuses = new Set<number>(Object.values(GATEWAY_CODES))
  for (const spec of Object.values(ERRORS)) if (spec.http >= 400) statuses.add(spec.http)
  return [...statuses].sort((a, b) => a - b)
}
