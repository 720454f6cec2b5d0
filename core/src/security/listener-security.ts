import {
  type Configuration,
  INTERNAL_LISTENER_NAME,
  SASL_LISTENER_JAAS_PREFIX,
  SECURITY_PROTOCOL_MAP,
  SECURITY_SASL_ENABLED_MECHANISMS,
  SECURITY_SASL_PLAIN_JAAS_CONFIG,
  SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG,
  type SecurityProtocol,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_DELAY,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_WINDOW,
  SLUICE_SECURITY_AUTHENTICATION_MAX_FAILURES,
  SLUICE_SECURITY_SSL_CA_FILE,
  SLUICE_SECURITY_SSL_CERTIFICATE_FILE,
  SLUICE_SECURITY_SSL_CLIENT_AUTH,
  SLUICE_SECURITY_SSL_KEY_FILE,
  SLUICE_SECURITY_SSL_MIN_VERSION,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import type { ClientSecurity } from './client-security.js'
import { FailureLimiter } from './failure-limiter.js'
import { type JaasEntry, jaasUsers, PLAIN_LOGIN_MODULE, parseJaasConfig, SCRAM_LOGIN_MODULE } from './jaas.js'
import { PLAIN, PlainSaslServer, type SaslMechanism, type SaslServer, SCRAM_SHA_256 } from './sasl.js'
import { parseScramCredential, ScramSaslServer } from './scram.js'
import { type AuthLogger, SaslAuthenticator } from './server-authenticator.js'
import { TlsCredentials } from './tls.js'

/** How one named listener is secured. */
export interface ListenerSecurity {
  readonly listenerName: string
  readonly protocol: SecurityProtocol
  /** The `internal.listener.name` listener: its sessions are servers, trusted by the authorizer. */
  readonly internal: boolean
  readonly tls?: TlsCredentials
  readonly sasl?: SaslAuthenticator
}

const usesSasl = (p: SecurityProtocol) => p === 'SASL' || p === 'SASL_SSL'
const usesTls = (p: SecurityProtocol) => p === 'SSL' || p === 'SASL_SSL'

function invalid(message: string): FlussError {
  return new FlussError('INVALID_CONFIG_EXCEPTION', message)
}

/** `security.protocol.map` as listener name → protocol (names as written, protocols upper case). */
export function parseProtocolMap(text: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>()
  for (const pair of text
    .split(',')
    .map(s => s.trim())
    .filter(s => s.length > 0)) {
    const [name, protocol] = pair.split(':').map(s => s.trim())
    if (map.has(name)) throw invalid(`'${SECURITY_PROTOCOL_MAP.key}' names listener '${name}' twice`)
    map.set(name, protocol.toUpperCase() as SecurityProtocol)
  }
  return map
}

export function listenerProtocol(config: Configuration, listenerName: string): SecurityProtocol {
  return parseProtocolMap(config.get(SECURITY_PROTOCOL_MAP)).get(listenerName) ?? 'PLAINTEXT'
}

/**
 * The JAAS config of a mechanism on a listener, in Fluss's lookup order:
 * `security.sasl.listener.name.<listener>.<mechanism>.jaas.config`, then
 * `security.sasl.<mechanism>.jaas.config`.
 */
export function listenerJaas(
  config: Configuration,
  listenerName: string,
  mechanism: SaslMechanism,
): JaasEntry[] | undefined {
  const listenerKey = `${SASL_LISTENER_JAAS_PREFIX}${listenerName.toLowerCase()}.${mechanism.toLowerCase()}.jaas.config`
  const listenerText = config.rawValues()[listenerKey]
  const globalOption =
    mechanism === PLAIN ? SECURITY_SASL_PLAIN_JAAS_CONFIG : SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG
  const text =
    typeof listenerText === 'string' && listenerText.trim() !== ''
      ? listenerText
      : config.getOptional(globalOption)
  if (text === undefined || text.trim() === '') return undefined
  try {
    return parseJaasConfig(text)
  } catch (e) {
    const key = typeof listenerText === 'string' ? listenerKey : globalOption.key
    throw invalid(`'${key}': ${(e as Error).message}`)
  }
}

function mechanismFactory(
  config: Configuration,
  listenerName: string,
  mechanism: SaslMechanism,
): () => SaslServer {
  const entries = listenerJaas(config, listenerName, mechanism)
  const module = mechanism === PLAIN ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE
  const users = entries === undefined ? new Map<string, string>() : jaasUsers(entries, module)
  if (users.size === 0) {
    throw invalid(
      `Listener '${listenerName}' uses SASL/${mechanism} but no JAAS config gives it users: set '${mechanism === PLAIN ? SECURITY_SASL_PLAIN_JAAS_CONFIG.key : SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG.key}' to '${module} required user_<name>="..." ...;'`,
    )
  }
  if (mechanism === PLAIN) return () => new PlainSaslServer(users)
  const credentials = new Map([...users].map(([u, text]) => [u, parseScramCredential(text, u)]))
  return () => new ScramSaslServer(credentials)
}

function tlsCredentials(config: Configuration, listenerName: string): TlsCredentials {
  const certificateFile = config.getOptional(SLUICE_SECURITY_SSL_CERTIFICATE_FILE)
  const keyFile = config.getOptional(SLUICE_SECURITY_SSL_KEY_FILE)
  if (certificateFile === undefined || keyFile === undefined) {
    throw invalid(
      `Listener '${listenerName}' uses TLS: set '${SLUICE_SECURITY_SSL_CERTIFICATE_FILE.key}' and '${SLUICE_SECURITY_SSL_KEY_FILE.key}'`,
    )
  }
  const caFile = config.getOptional(SLUICE_SECURITY_SSL_CA_FILE)
  const clientAuth = config.get(SLUICE_SECURITY_SSL_CLIENT_AUTH)
  if (clientAuth !== 'none' && caFile === undefined)
    throw invalid(
      `'${SLUICE_SECURITY_SSL_CLIENT_AUTH.key}=${clientAuth}' needs '${SLUICE_SECURITY_SSL_CA_FILE.key}'`,
    )
  return new TlsCredentials({
    certificateFile,
    keyFile,
    clientAuth,
    minVersion: config.get(SLUICE_SECURITY_SSL_MIN_VERSION),
    ...(caFile === undefined ? {} : { caFile }),
  })
}

/**
 * Builds the security of every listener of a server from its configuration; fails at startup
 * (INVALID_CONFIG_EXCEPTION) when a listener's protocol lacks what it needs. One failure limiter
 * is shared by the listeners of the process.
 */
export function serverListenerSecurity(
  config: Configuration,
  listenerNames: readonly string[],
  logger: AuthLogger,
): Map<string, ListenerSecurity> {
  const protocols = parseProtocolMap(config.get(SECURITY_PROTOCOL_MAP))
  for (const name of protocols.keys()) {
    if (!listenerNames.includes(name))
      throw invalid(
        `'${SECURITY_PROTOCOL_MAP.key}' names listener '${name}', which is not in 'bind.listeners'`,
      )
  }
  const limiter = new FailureLimiter({
    maxFailures: config.get(SLUICE_SECURITY_AUTHENTICATION_MAX_FAILURES),
    windowMs: config.get(SLUICE_SECURITY_AUTHENTICATION_FAILURE_WINDOW),
  })
  const internalName = config.get(INTERNAL_LISTENER_NAME)
  const mechanisms = config.get(SECURITY_SASL_ENABLED_MECHANISMS) as SaslMechanism[]
  const out = new Map<string, ListenerSecurity>()
  let tls: TlsCredentials | undefined
  for (const listenerName of listenerNames) {
    const protocol = protocols.get(listenerName) ?? 'PLAINTEXT'
    const sasl = usesSasl(protocol)
      ? new SaslAuthenticator({
          listenerName,
          mechanisms: new Map(mechanisms.map(m => [m, mechanismFactory(config, listenerName, m)])),
          limiter,
          failureDelayMs: config.get(SLUICE_SECURITY_AUTHENTICATION_FAILURE_DELAY),
          logger,
        })
      : undefined
    if (usesTls(protocol)) tls ??= tlsCredentials(config, listenerName)
    out.set(listenerName, {
      listenerName,
      protocol,
      internal: listenerName === internalName,
      ...(usesTls(protocol) ? { tls } : {}),
      ...(sasl === undefined ? {} : { sasl }),
    })
  }
  return out
}

/**
 * What a server presents when it connects to another server's internal listener: TLS when the
 * listener uses it (verified against `sluice.security.ssl.ca-file`, with this server's certificate),
 * and on SASL listeners the `username`/`password` of the internal listener's JAAS config (first
 * enabled mechanism), as Kafka's inter-broker credentials.
 */
export function internalClientSecurity(config: Configuration): ClientSecurity {
  const internalName = config.get(INTERNAL_LISTENER_NAME)
  const protocol = listenerProtocol(config, internalName)
  const out: { tls?: ClientSecurity['tls']; sasl?: ClientSecurity['sasl'] } = {}
  if (usesTls(protocol)) {
    const caFile = config.getOptional(SLUICE_SECURITY_SSL_CA_FILE)
    const cert = config.getOptional(SLUICE_SECURITY_SSL_CERTIFICATE_FILE)
    const key = config.getOptional(SLUICE_SECURITY_SSL_KEY_FILE)
    out.tls = {
      ...(caFile === undefined ? {} : { caFile }),
      ...(cert === undefined || key === undefined ? {} : { certificateFile: cert, keyFile: key }),
    }
  }
  if (usesSasl(protocol)) {
    const mechanism = (config.get(SECURITY_SASL_ENABLED_MECHANISMS) as SaslMechanism[])[0] ?? PLAIN
    const entries = listenerJaas(config, internalName, mechanism) ?? []
    const module = mechanism === SCRAM_SHA_256 ? SCRAM_LOGIN_MODULE : PLAIN_LOGIN_MODULE
    const entry = entries.find(e => e.loginModule === module)
    const username = entry?.options.get('username')
    const password = entry?.options.get('password')
    if (username === undefined || password === undefined) {
      throw invalid(
        `The internal listener '${internalName}' uses SASL/${mechanism}: its JAAS config needs username="..." password="..." (the credentials servers present to each other)`,
      )
    }
    out.sasl = { mechanism, username, password }
  }
  return out
}
