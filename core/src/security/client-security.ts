import { readFileSync } from 'node:fs'
import type { ConnectionOptions } from 'node:tls'
import {
  CLIENT_SECURITY_PROTOCOL,
  CLIENT_SECURITY_SASL_JAAS_CONFIG,
  CLIENT_SECURITY_SASL_MECHANISM,
  CLIENT_SECURITY_SASL_PASSWORD,
  CLIENT_SECURITY_SASL_USERNAME,
  CLIENT_SECURITY_SSL_CA_FILE,
  CLIENT_SECURITY_SSL_CERTIFICATE_FILE,
  CLIENT_SECURITY_SSL_KEY_FILE,
  CLIENT_SECURITY_SSL_SERVER_NAME,
  type Configuration,
  SASL_PLAIN_USER_PREFIX,
  SLUICE_SECURITY_SSL_CA,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { parseJaasConfig } from './jaas.js'
import { PLAIN, PlainSaslClient, type SaslClient, type SaslMechanism } from './sasl.js'
import { ScramSaslClient } from './scram.js'

/** How a client secures its connections: TLS (with a CA bundle, optionally a client certificate) and SASL. */
export interface ClientSecurity {
  readonly tls?: {
    readonly caFile?: string
    readonly certificateFile?: string
    readonly keyFile?: string
    /** PEM text instead of the files (servers' credentials from a secret). */
    readonly ca?: string
    readonly certificate?: string
    readonly key?: string
    /** Overrides the name the server certificate must carry (default: the host connected to). */
    readonly serverName?: string
  }
  readonly sasl?: {
    readonly mechanism: SaslMechanism
    readonly username: string
    readonly password: string
  }
}

function invalid(message: string): FlussError {
  return new FlussError('INVALID_CONFIG_EXCEPTION', message)
}

/**
 * The client side of `client.security.*`, with Fluss's rules: SASL credentials come from
 * `client.security.sasl.username` + `password` (both or neither) or from the JAAS config's
 * `username`/`password`; SASL without credentials is refused before connecting. A process that
 * holds the cluster's secrets (the gateway) may give only the user name: its password is then the
 * secret `sluice.security.sasl.plain.user.<name>`, and without `client.security.ssl.ca-file` it
 * trusts the CA of `sluice.security.ssl.ca`.
 */
export function clientSecurity(config: Configuration): ClientSecurity {
  const protocol = config.get(CLIENT_SECURITY_PROTOCOL)
  const out: { tls?: ClientSecurity['tls']; sasl?: ClientSecurity['sasl'] } = {}
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const caFile = config.getOptional(CLIENT_SECURITY_SSL_CA_FILE)
    const certificateFile = config.getOptional(CLIENT_SECURITY_SSL_CERTIFICATE_FILE)
    const keyFile = config.getOptional(CLIENT_SECURITY_SSL_KEY_FILE)
    if ((certificateFile === undefined) !== (keyFile === undefined))
      throw invalid(
        `'${CLIENT_SECURITY_SSL_CERTIFICATE_FILE.key}' and '${CLIENT_SECURITY_SSL_KEY_FILE.key}' must be set together`,
      )
    const serverName = config.getOptional(CLIENT_SECURITY_SSL_SERVER_NAME)
    const caText = caFile === undefined ? config.getOptional(SLUICE_SECURITY_SSL_CA) : undefined
    out.tls = {
      ...(caFile === undefined ? {} : { caFile }),
      ...(caText === undefined ? {} : { ca: caText }),
      ...(certificateFile === undefined ? {} : { certificateFile, keyFile }),
      ...(serverName === undefined ? {} : { serverName }),
    }
  }
  if (protocol === 'SASL' || protocol === 'SASL_SSL') {
    const mechanism = config.get(CLIENT_SECURITY_SASL_MECHANISM) as SaslMechanism
    let username = config.getOptional(CLIENT_SECURITY_SASL_USERNAME)
    let password = config.getOptional(CLIENT_SECURITY_SASL_PASSWORD)
    if (username !== undefined && password === undefined && mechanism === PLAIN) {
      const kept = config.rawValues()[`${SASL_PLAIN_USER_PREFIX}${username}`]
      if (kept !== undefined) password = String(kept)
    }
    if ((username === undefined) !== (password === undefined))
      throw invalid(
        `Configuration '${CLIENT_SECURITY_SASL_USERNAME.key}' and '${CLIENT_SECURITY_SASL_PASSWORD.key}' must be set together for SASL JAAS authentication`,
      )
    const jaas = config.getOptional(CLIENT_SECURITY_SASL_JAAS_CONFIG)
    if (username === undefined && jaas !== undefined) {
      const entry = parseJaasConfig(jaas)[0]
      username = entry.options.get('username')
      password = entry.options.get('password')
    }
    if (username === undefined || password === undefined)
      throw invalid(
        `'${CLIENT_SECURITY_PROTOCOL.key}=${protocol}' needs credentials: '${CLIENT_SECURITY_SASL_USERNAME.key}' and '${CLIENT_SECURITY_SASL_PASSWORD.key}', or '${CLIENT_SECURITY_SASL_JAAS_CONFIG.key}'`,
      )
    out.sasl = { mechanism, username, password }
  }
  return out
}

export function newSaslClient(sasl: NonNullable<ClientSecurity['sasl']>): SaslClient {
  return sasl.mechanism === PLAIN
    ? new PlainSaslClient(sasl.username, sasl.password)
    : new ScramSaslClient(sasl.username, sasl.password)
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path)
  } catch (e) {
    throw invalid(`Cannot read the TLS ${what} '${path}': ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** `tls.connect` options of a client: TLS 1.2+, the server certificate verified. */
export function tlsConnectOptions(t: NonNullable<ClientSecurity['tls']>, host: string): ConnectionOptions {
  return {
    minVersion: 'TLSv1.2',
    rejectUnauthorized: true,
    servername: t.serverName ?? (/^[\d.]+$|:/.test(host) ? undefined : host),
    ...(t.ca !== undefined
      ? { ca: t.ca }
      : t.caFile === undefined
        ? {}
        : { ca: readPem(t.caFile, 'CA file') }),
    ...(t.certificate !== undefined && t.key !== undefined
      ? { cert: t.certificate, key: t.key }
      : t.certificateFile === undefined || t.keyFile === undefined
        ? {}
        : { cert: readPem(t.certificateFile, 'certificate file'), key: readPem(t.keyFile, 'key file') }),
  }
}
