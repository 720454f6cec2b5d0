import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import { FlussError } from '../errors/index.js'
import {
  authError,
  CredentialsSaslClient,
  MAX_SASL_TOKEN_BYTES,
  type SaslServer,
  SCRAM_SHA_256,
} from './sasl.js'

/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) without channel binding. Servers keep only the salted
 * credential `<iterations>:<salt>:<storedKey>:<serverKey>` (base64 parts) per user, never the
 * password; `scramCredential(password)` makes one. Unknown users get a deterministic fake salt and
 * fail at the last step with the same message as a wrong password.
 */
export interface ScramCredential {
  readonly iterations: number
  readonly salt: Buffer
  readonly storedKey: Buffer
  readonly serverKey: Buffer
}

export const SCRAM_MIN_ITERATIONS = 4096
const FAKE_SECRET = randomBytes(32)

const hmac = (key: Buffer, text: string | Buffer) => createHmac('sha256', key).update(text).digest()
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest()

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length)
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i]
  return out
}

function saltedPassword(password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, 32, 'sha256')
}

export function deriveScramCredential(password: string, salt: Buffer, iterations: number): ScramCredential {
  const salted = saltedPassword(password, salt, iterations)
  const clientKey = hmac(salted, 'Client Key')
  return { iterations, salt, storedKey: sha256(clientKey), serverKey: hmac(salted, 'Server Key') }
}

/** The stored form of a new credential for `password` (random salt). */
export function scramCredential(password: string, iterations = SCRAM_MIN_ITERATIONS): string {
  const c = deriveScramCredential(password, randomBytes(16), iterations)
  return [c.iterations, c.salt, c.storedKey, c.serverKey]
    .map(p => (typeof p === 'number' ? p : p.toString('base64')))
    .join(':')
}

export function parseScramCredential(text: string, user: string): ScramCredential {
  const parts = text.split(':')
  const iterations = Number(parts[0])
  const bad = () =>
    new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `The SCRAM-SHA-256 credential of user '${user}' is not '<iterations>:<salt>:<storedKey>:<serverKey>' (base64)`,
    )
  if (parts.length !== 4 || !Number.isSafeInteger(iterations) || iterations < SCRAM_MIN_ITERATIONS)
    throw bad()
  const [salt, storedKey, serverKey] = parts.slice(1).map(p => Buffer.from(p, 'base64'))
  if (salt.length < 8 || storedKey.length !== 32 || serverKey.length !== 32) throw bad()
  return { iterations, salt, storedKey, serverKey }
}

/** `a=b,c=d` attributes of a SCRAM message, in order. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of message.split(',')) {
    if (part.length < 2 || part[1] !== '=') throw authError('Invalid SCRAM message')
    if (!out.has(part[0])) out.set(part[0], part.slice(2))
  }
  return out
}

function decodeUsername(saslName: string): string {
  if (/=(?!2C|3D)/.test(saslName)) throw authError('Invalid SCRAM user name')
  return saslName.replace(/=2C/g, ',').replace(/=3D/g, '=')
}

const encodeUsername = (name: string) => name.replace(/=/g, '=3D').replace(/,/g, '=2C')

export class ScramSaslServer implements SaslServer {
  readonly mechanism = SCRAM_SHA_256
  #state: 'first' | 'final' | 'complete' | 'failed' = 'first'
  #user = ''
  #credential: ScramCredential | undefined
  #fake = false
  #clientFirstBare = ''
  #serverFirst = ''
  #nonce = ''

  constructor(private readonly credentials: ReadonlyMap<string, ScramCredential>) {}

  get complete(): boolean {
    return this.#state === 'complete'
  }

  get authorizationId(): string | undefined {
    return this.complete ? this.#user : undefined
  }

  evaluate(token: Buffer): Buffer {
    if (token.length > MAX_SASL_TOKEN_BYTES)
      throw authError(`Invalid SCRAM message: longer than ${MAX_SASL_TOKEN_BYTES} bytes`)
    try {
      if (this.#state === 'first') return this.#first(token.toString('utf8'))
      if (this.#state === 'final') return this.#final(token.toString('utf8'))
    } catch (e) {
      this.#state = 'failed'
      throw e
    }
    throw authError('The SCRAM exchange is over; reconnect to authenticate again')
  }

  #first(message: string): Buffer {
    const m = /^([ny]),(a=[^,]*)?,(.*)$/.exec(message)
    if (m === null) throw authError('Invalid SCRAM client-first message (channel binding is not supported)')
    if (m[2] !== undefined && m[2].length > 2) throw authError('SCRAM authorization ids are not supported')
    this.#clientFirstBare = m[3]
    const attrs = attributes(m[3])
    const user = attrs.get('n')
    const clientNonce = attrs.get('r')
    if (!user || !clientNonce || /[^\x21-\x7e]|,/.test(clientNonce))
      throw authError('Invalid SCRAM client-first message')
    this.#user = decodeUsername(user)
    const known = this.credentials.get(this.#user)
    this.#fake = known === undefined
    this.#credential = known ?? {
      iterations: SCRAM_MIN_ITERATIONS,
      salt: hmac(FAKE_SECRET, this.#user).subarray(0, 16),
      storedKey: Buffer.alloc(32),
      serverKey: Buffer.alloc(32),
    }
    this.#nonce = clientNonce + randomBytes(18).toString('base64')
    const c = this.#credential
    this.#serverFirst = `r=${this.#nonce},s=${c.salt.toString('base64')},i=${c.iterations}`
    this.#state = 'final'
    return Buffer.from(this.#serverFirst, 'utf8')
  }

  #final(message: string): Buffer {
    const proofAt = message.lastIndexOf(',p=')
    if (proofAt < 0) throw authError('Invalid SCRAM client-final message')
    const withoutProof = message.slice(0, proofAt)
    const attrs = attributes(withoutProof)
    if (attrs.get('r') !== this.#nonce) throw authError('Invalid SCRAM nonce')
    if (attrs.get('c') !== 'biws' && attrs.get('c') !== 'eSws')
      throw authError('SCRAM channel binding is not supported')
    const proof = Buffer.from(message.slice(proofAt + 3), 'base64')
    const c = this.#credential as ScramCredential
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`
    const clientSignature = hmac(c.storedKey, authMessage)
    const valid =
      proof.length === 32 && timingSafeEqual(sha256(xor(proof, clientSignature)), c.storedKey) && !this.#fake
    if (!valid) throw authError('Authentication failed: Invalid username or password')
    this.#state = 'complete'
    return Buffer.from(`v=${hmac(c.serverKey, authMessage).toString('base64')}`, 'utf8')
  }
}

export class ScramSaslClient extends CredentialsSaslClient {
  readonly mechanism = SCRAM_SHA_256
  readonly #nonce = randomBytes(18).toString('base64')
  #clientFirstBare = ''
  #expectedServerSignature: Buffer | undefined

  initialToken(): Buffer {
    this.#clientFirstBare = `n=${encodeUsername(this.username)},r=${this.#nonce}`
    return Buffer.from(`n,,${this.#clientFirstBare}`, 'utf8')
  }

  evaluateChallenge(challenge: Buffer): Buffer | null {
    const text = challenge.toString('utf8')
    if (this.#expectedServerSignature !== undefined) {
      const v = attributes(text).get('v')
      if (v === undefined || !timingSafeEqualLoose(Buffer.from(v, 'base64'), this.#expectedServerSignature))
        throw authError('The server failed the SCRAM-SHA-256 exchange: wrong server signature')
      this.done = true
      return null
    }
    const attrs = attributes(text)
    const nonce = attrs.get('r')
    const salt = attrs.get('s')
    const iterations = Number(attrs.get('i'))
    if (!nonce?.startsWith(this.#nonce) || salt === undefined || !Number.isSafeInteger(iterations))
      throw authError('Invalid SCRAM server-first message')
    if (iterations < SCRAM_MIN_ITERATIONS) throw authError(`SCRAM iteration count ${iterations} is too low`)
    const salted = saltedPassword(this.password, Buffer.from(salt, 'base64'), iterations)
    const clientKey = hmac(salted, 'Client Key')
    const withoutProof = `c=biws,r=${nonce}`
    const authMessage = `${this.#clientFirstBare},${text},${withoutProof}`
    const proof = xor(clientKey, hmac(sha256(clientKey), authMessage))
    this.#expectedServerSignature = hmac(hmac(salted, 'Server Key'), authMessage)
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8')
  }
}

function timingSafeEqualLoose(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}
