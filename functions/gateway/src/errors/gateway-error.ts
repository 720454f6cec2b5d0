import { GATEWAY_CODES, type GatewayCode } from './gateway-codes.js'

/** One row that a write did not get acknowledged, with the reason. */
export interface FailedRow {
  readonly index: number
  readonly code: string
  readonly message: string
}

/** What a write that failed part-way did and did not do. */
export interface PartialWrite {
  /** Indexes (into the request's rows) the cluster acknowledged. */
  readonly acknowledgedRows: readonly number[]
  readonly failedRows: readonly FailedRow[]
}

export interface GatewayErrorOptions {
  readonly cause?: unknown
  /** Seconds for `Retry-After` (429 and 503 only; default 1). */
  readonly retryAfterSec?: number
  /** Extra response headers (e.g. `Allow` for 405, `WWW-Authenticate` for 401). */
  readonly headers?: Readonly<Record<string, string>>
  readonly partialWrite?: PartialWrite
}

/** An error raised at the HTTP edge; rendered as the error envelope with its code's status. */
export class GatewayError extends Error {
  readonly status: number
  readonly code: string

  constructor(
    code: GatewayCode,
    message: string,
    readonly options: GatewayErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = `GatewayError(${code})`
    this.code = code
    this.status = GATEWAY_CODES[code]
  }

  /** An error with a code and status taken from elsewhere (a FlussError's gateway code). */
  static withStatus(
    code: string,
    status: number,
    message: string,
    options: GatewayErrorOptions = {},
  ): GatewayError {
    const err = new GatewayError('internal', message, options)
    Object.assign(err, { code, status, name: `GatewayError(${code})` })
    return err
  }
}

export function invalidArgument(message: string): GatewayError {
  return new GatewayError('invalid_argument', message)
}
