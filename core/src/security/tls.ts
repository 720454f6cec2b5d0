import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext, type SecureContextOptions, type TLSSocket, type TlsOptions } from 'node:tls'
import { FlussError } from '../errors/index.js'
import { type FlussPrincipal, userPrincipal } from './principal.js'
import type { AuthLogger } from './server-authenticator.js'

/**
 * Where a TLS listener's credentials come from: PEM files (re-read when they change), or PEM text
 * (`certificate`/`key`/`ca`, e.g. from a secret; fixed for the life of the process). One of each
 * pair is set.
 */
export interface TlsFiles {
  readonly certificateFile?: string
  readonly keyFile?: string
  /** CAs client certificates are verified against. */
  readonly caFile?: string
  readonly certificate?: string
  readonly key?: string
  readonly ca?: string
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

function pemOf(text: string | undefined, file: string | undefined, what: string): Buffer {
  if (text !== undefined) return Buffer.from(text)
  if (file === undefined) throw new FlussError('INVALID_CONFIG_EXCEPTION', `No TLS ${what} is configured`)
  return readPem(file, `${what} file`)
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
    const f = this.files
    if (f.certificateFile === undefined && f.keyFile === undefined && f.caFile === undefined) return () => {}
    const timer = setInterval(() => {
      try {
        const changed = this.reload()
        if (changed === undefined) return
        apply(changed)
        logger.info?.('TLS certificate reloaded', { certificate: this.#certificateName() })
      } catch (e) {
        logger.warn('TLS certificate reload failed; the previous certificate stays in use', {
          error: e instanceof Error ? e.message : String(e),
        })
      }
    }, intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }

  #certificateName(): string {
    return this.files.certificateFile ?? 'sluice.security.ssl.certificate'
  }

  #load(): { options: SecureContextOptions; fingerprint: string } {
    const f = this.files
    const cert = pemOf(f.certificate, f.certificateFile, 'certificate')
    const key = pemOf(f.key, f.keyFile, 'key')
    const ca =
      f.ca !== undefined
        ? Buffer.from(f.ca)
        : f.caFile === undefined
          ? undefined
          : readPem(f.caFile, 'CA file')
    const options: SecureContextOptions = { cert, key, minVersion: f.minVersion, ...(ca ? { ca } : {}) }
    try {
      createSecureContext(options)
    } catch (e) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `The TLS certificate '${this.#certificateName()}' and key '${f.keyFile ?? 'sluice.security.ssl.key'}' do not form a valid context: ${e instanceof Error ? e.message : String(e)}`,
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
