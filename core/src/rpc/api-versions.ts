import { FlussError } from '../errors/index.js'
import type { ApiSpec } from './api-keys.js'
import type { ApiVersionsResponse } from './generated/fluss-api.js'
import { SERVER_TYPE_ID } from './handler.js'

const ROLE_BY_TYPE_ID: Record<number, string> = { 1: 'coordinator', 2: 'tablet server' }

/**
 * What one server advertised in its ApiVersionsResponse, and the version negotiation against it: an
 * API is called at min(our max, server max), provided that is at least max(our min, server min).
 */
export class ServerApiVersions {
  readonly #ranges: ReadonlyMap<number, { readonly min: number; readonly max: number }>
  /** 1 = coordinator, 2 = tablet server, null when the server did not say (a combined server). */
  readonly serverType: number | null

  constructor(response: ApiVersionsResponse) {
    this.#ranges = new Map(
      response.apiVersions.map(v => [v.apiKey, { min: v.minVersion, max: v.maxVersion }]),
    )
    this.serverType = response.serverType
  }

  /** Whether the server advertises the API at all. */
  has(spec: ApiSpec): boolean {
    return this.#ranges.has(spec.key)
  }

  /**
   * The version to use for `spec` (the highest both sides support, or `requested` if given and
   * supported by both). Throws UNSUPPORTED_VERSION when there is none.
   */
  versionFor(spec: ApiSpec, endpoint: string, requested?: number): number {
    const range = this.#ranges.get(spec.key)
    if (range === undefined) {
      throw new FlussError(
        'UNSUPPORTED_VERSION',
        `${spec.name} is not supported by the server at ${endpoint}`,
      )
    }
    const min = Math.max(spec.minVersion, range.min)
    const max = Math.min(spec.maxVersion, range.max)
    const version = requested ?? max
    if (version < min || version > max) {
      const asked = requested === undefined ? '' : ` version ${requested}`
      throw new FlussError(
        'UNSUPPORTED_VERSION',
        `${spec.name}${asked}: no common version with the server at ${endpoint} ` +
          `(client ${spec.minVersion}..${spec.maxVersion}, server ${range.min}..${range.max})`,
      )
    }
    return version
  }

  /**
   * Checks the advertised server type against the role the caller expects, as Fluss clients do: only
   * when the server sent one. A mismatch means stale metadata (retriable after a refresh).
   */
  checkServerType(expected: 'coordinator' | 'tablet' | undefined, endpoint: string): void {
    if (expected === undefined || this.serverType === null) return
    if (this.serverType !== SERVER_TYPE_ID[expected]) {
      const actual = ROLE_BY_TYPE_ID[this.serverType] ?? `unknown server type ${this.serverType}`
      const wanted = ROLE_BY_TYPE_ID[SERVER_TYPE_ID[expected]]
      throw new FlussError(
        'NETWORK_EXCEPTION',
        `Server type mismatch at ${endpoint}: expected ${wanted}, got ${actual}`,
      )
    }
  }
}
