import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext, type SecureContextOptions, type TLSSocket, type TlsOptions } from 'node:tls'
import { FlussError } from '../errors/index.js'
import { type FlussPrincipal, userPrincipal } from './principal.js'
import type { AuthLogger } from './server-authenticator.js'

export interface TlsFiles {
  readonly certificateFile: string
  readonly keyFile: string
  /** CAs client certificates are verified against. */
  readonly caFile?: string
  readonly clientAuth: 'none' | 'requested' | 'required'
  readonly minVersion: 'TLSv1.2' | 'TLSv1.3'
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path)
  } catch (e) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Cannot read the TLS ${what} '${path}': ${e instanceof Error ? e.message : String(e)}`,
    )
  }
}

/**
 * A TLS listener's credentials, read from PEM files and re-read when they change: `reload()`
 * returns new context options only when the files' contents changed and still form a valid
 * context (a broken renewal is reported and the old certificate kept). Open connections keep the
 * context they were accepted with.
 */
export class TlsCredentials {
  readonly files: TlsFiles
  #current: SecureContextOptions
  #fingerprint: string

  constructor(files: TlsFiles) {
    this.files = files
    const { options, fingerprint } = this.#load()
    this.#current = options
    this.#fingerprint = fingerprint
  }

  /** The options of `tls.createServer`: TLS 1.2+, client certificates as configured. */
  serverOptions(): TlsOptions {
    const { clientAuth, minVersion } = this.files
    return {
      ...this.#current,
      minVersion,
      requestCert: clientAuth !== 'none',
      rejectUnauthorized: clientAuth === 'required',
    }
  }

  get contextOptions(): SecureContextOptions {
    return this.#current
  }

  /** Re-reads the files; new context options when they changed, undefined otherwise. Throws when unreadable or invalid. */
  reload(): SecureContextOptions | undefined {
    const { options, fingerprint } = this.#load()
    if (fingerprint === this.#fingerprint) return undefined
    this.#current = options
    this.#fingerprint = fingerprint
    return options
  }

  /** Checks for renewed files every `intervalMs`, calling `apply` with new context options. */
  watch(intervalMs: number, apply: (options: SecureContextOptions) => void, logger: AuthLogger): () => void {
    const timer = setInterval(() => {
      try {
        const changed = this.reload()
        if (changed === undefined) return
        apply(changed)
        logger.info?.('TLS certificate reloaded', { certificate: this.files.certificateFile })
      } catch (e) {
        logger.warn('TLS certificate reload failed; the previous certificate stays in use', {
          error: e instanceof Error ? e.message : String(e),
        })
      }
    }, intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }

  #load(): { options: SecureContextOptions; fingerprint: string } {
    const f = this.files
    const cert = readPem(f.certificateFile, 'certificate file')
    const key = readPem(f.keyFile, 'key file')
    const ca = f.caFile === undefined ? undefined : readPem(f.caFile, 'CA file')
    const options: SecureContextOptions = { cert, key, minVersion: f.minVersion, ...(ca ? { ca } : {}) }
    try {
      createSecureContext(options)
    } catch (e) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `The TLS certificate '${f.certificateFile}' and key '${f.keyFile}' do not form a valid context: ${e instanceof Error ? e.message : String(e)}`,
      )
    }
    const hash = createHash('sha256').update(cert).update(key)
    if (ca) hash.update(ca)
    return { options, fingerprint: hash.digest('hex') }
  }
}

/** `User:<subject CN>` of a verified client certificate, or undefined. */
export function certificatePrincipal(socket: TLSSocket): FlussPrincipal | undefined {
  if (!socket.authorized) return undefined
  const subject = socket.getPeerCertificate()?.subject as Record<string, string | string[]> | undefined
  const cn = subject?.CN
  const name = Array.isArray(cn) ? cn[0] : cn
  return typeof name === 'string' && name.length > 0 ? userPrincipal(name) : undefined
}
