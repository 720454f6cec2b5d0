import { createHash, timingSafeEqual } from 'node:crypto'
import { FlussError } from '../errors/index.js'

/** One server-side SASL exchange (Fluss's SaslServer through ServerAuthenticator). */
export interface SaslServer {
  readonly mechanism: string
  /** Evaluates one client token; returns the challenge to send back. Throws AUTHENTICATE_EXCEPTION. */
  evaluate(token: Buffer): Buffer
  readonly complete: boolean
  /** The authenticated user name (once complete). */
  readonly authorizationId: string | undefined
}

/** One client-side SASL exchange. */
export interface SaslClient {
  readonly mechanism: string
  /** The first token (PLAIN: the credentials; SCRAM: client-first). */
  initialToken(): Buffer
  /** Answers a server challenge; null when there is nothing more to send. Throws AUTHENTICATE_EXCEPTION. */
  evaluateChallenge(challenge: Buffer): Buffer | null
  readonly complete: boolean
}

export const PLAIN = 'PLAIN'
export const SCRAM_SHA_256 = 'SCRAM-SHA-256'
export const SASL_MECHANISMS = [PLAIN, SCRAM_SHA_256] as const
export type SaslMechanism = (typeof SASL_MECHANISMS)[number]

/** Longest AUTHENTICATE token accepted; RFC 4616 fields are at most 255 octets each. */
export const MAX_SASL_TOKEN_BYTES = 4096

export function authError(message: string): FlussError {
  return new FlussError('AUTHENTICATE_EXCEPTION', message)
}

/** Equal-time comparison of two secrets of any lengths (compares their SHA-256 digests). */
export function secretsEqual(a: string | Buffer, b: string | Buffer): boolean {
  const da = createHash('sha256').update(a).digest()
  const db = createHash('sha256').update(b).digest()
  return timingSafeEqual(da, db)
}

/**
 * SASL/PLAIN (RFC 4616) as Fluss's PlainSaslServer: `[authzid] NUL authcid NUL passwd`, checked
 * against the `user_<name>` passwords of the JAAS config. Unknown users cost the same comparison
 * as known ones; messages never name the password.
 */
export class PlainSaslServer implements SaslServer {
  readonly mechanism = PLAIN
  #complete = false
  #authorizationId: string | undefined

  constructor(private readonly passwords: ReadonlyMap<string, string>) {}

  get complete(): boolean {
    return this.#complete
  }

  get authorizationId(): string | undefined {
    return this.#authorizationId
  }

  evaluate(token: Buffer): Buffer {
    if (token.length > MAX_SASL_TOKEN_BYTES)
      throw authError(`Invalid SASL/PLAIN response: longer than ${MAX_SASL_TOKEN_BYTES} bytes`)
    const parts = token.toString('utf8').split('\u0000')
    if (parts.length !== 3)
      throw authError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${Math.min(parts.length, 4)}`)
    const [authzid, username, password] = parts
    if (username.length === 0) throw authError('Authentication failed: username not specified')
    if (password.length === 0) throw authError('Authentication failed: password not specified')
    const expected = this.passwords.get(username)
    const matches = secretsEqual(password, expected ?? '\u0000unknown-user')
    if (expected === undefined || !matches)
      throw authError('Authentication failed: Invalid username or password')
    if (authzid.length > 0 && authzid !== username)
      throw authError(
        'Authentication failed: Client requested an authorization id that is different from username',
      )
    this.#authorizationId = username
    this.#complete = true
    return Buffer.alloc(0)
  }
}

/** What every client mechanism holds: the credentials and whether the exchange is complete. */
export abstract class CredentialsSaslClient implements SaslClient {
  abstract readonly mechanism: string
  protected done = false

  constructor(
    protected readonly username: string,
    protected readonly password: string,
  ) {}

  get complete(): boolean {
    return this.done
  }

  abstract initialToken(): Buffer
  abstract evaluateChallenge(challenge: Buffer): Buffer | null
}

export class PlainSaslClient extends CredentialsSaslClient {
  readonly mechanism = PLAIN

  initialToken(): Buffer {
    this.done = true
    return Buffer.from(`\u0000${this.username}\u0000${this.password}`, 'utf8')
  }

  evaluateChallenge(): Buffer | null {
    return null
  }
}
