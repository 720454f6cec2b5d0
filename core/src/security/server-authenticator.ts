import { FlussError } from '../errors/index.js'
import type { AuthenticateRequest, AuthenticateResponseInit } from '../rpc/index.js'
import { sleep } from '../util/sleep.js'
import type { FailureLimiter } from './failure-limiter.js'
import { userPrincipal } from './principal.js'
import { authError, type SaslServer } from './sasl.js'
import type { Session } from './session.js'

/** Where authentication outcomes are reported; fields never carry tokens or passwords. */
export interface AuthLogger {
  info?(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

export interface SaslAuthenticatorOptions {
  readonly listenerName: string
  /** Mechanism name (upper case) → a new server exchange. */
  readonly mechanisms: ReadonlyMap<string, () => SaslServer>
  readonly limiter: FailureLimiter
  /** Extra wait before answering a failed attempt. */
  readonly failureDelayMs: number
  readonly logger: AuthLogger
}

/**
 * The AUTHENTICATE handler of a SASL listener (Fluss's NettyServerHandler.handleAuthenticateRequest
 * with SaslServerAuthenticator): matches the mechanism, runs the exchange round by round, and marks
 * the session ready with principal `User:<name>` once it completes. After completion further
 * AUTHENTICATE requests get an empty answer (fluss-rust sends one back with the challenge).
 * Failures are logged (user name and address, never the token), delayed, and counted per client
 * address; an address over its limit is refused without the credentials being checked.
 */
export class SaslAuthenticator {
  readonly #options: SaslAuthenticatorOptions

  constructor(options: SaslAuthenticatorOptions) {
    this.#options = options
  }

  get mechanisms(): string[] {
    return [...this.#options.mechanisms.keys()]
  }

  async authenticate(request: AuthenticateRequest, session: Session): Promise<AuthenticateResponseInit> {
    if (session.authenticated) return {}
    const mechanism = request.protocol.toUpperCase()
    const create = this.#options.mechanisms.get(mechanism)
    if (create === undefined) {
      throw authError(
        `SASL server enables [${this.mechanisms.join(', ')}] while protocol of client is '${request.protocol}'`,
      )
    }
    const address = session.clientAddress
    const blockedMs = this.#options.limiter.blockedForMs(address)
    if (blockedMs > 0) {
      throw authError(
        `Too many failed authentications from ${address}; try again in ${Math.ceil(blockedMs / 1000)} s`,
      )
    }
    if (session.sasl === undefined || session.sasl.mechanism !== mechanism) session.sasl = create()
    const exchange = session.sasl
    let challenge: Buffer
    try {
      challenge = exchange.evaluate(request.token)
    } catch (e) {
      session.sasl = undefined
      await this.#failed(session, mechanism, e)
      throw e
    }
    if (exchange.complete) {
      const name = exchange.authorizationId as string
      session.principal = userPrincipal(name)
      session.via = `sasl:${mechanism}`
      session.state = 'ready'
      session.sasl = undefined
      this.#options.logger.info?.('authenticated', {
        listener: this.#options.listenerName,
        address,
        principal: `User:${name}`,
        mechanism,
      })
    }
    return { challenge }
  }

  async #failed(session: Session, mechanism: string, e: unknown): Promise<void> {
    const address = session.clientAddress
    this.#options.limiter.recordFailure(address)
    this.#options.logger.warn('authentication failed', {
      listener: this.#options.listenerName,
      address,
      mechanism,
      reason: e instanceof FlussError ? e.message : 'unexpected error',
    })
    if (this.#options.failureDelayMs > 0) await sleep(this.#options.failureDelayMs)
  }
}

/** The AUTHENTICATE answer of a PLAINTEXT or SSL listener: the protocols do not match. */
export function refusePlaintextAuthenticate(request: AuthenticateRequest, protocol: string): never {
  throw authError(
    `Authenticate protocol not match: protocol of server is '${protocol}' while protocol of client is '${request.protocol}'`,
  )
}

/** The error of any request but ApiVersions and AUTHENTICATE before authentication completed. */
export function notAuthenticatedError(): FlussError {
  return authError(
    "The connection has not completed authentication yet. This may be caused by a missing or incorrect configuration of 'client.security.protocol' on the client side.",
  )
}
