import {
  AUTHORIZER_ENABLED,
  type Configuration,
  INTERNAL_LISTENER_NAME,
  SASL_LISTENER_JAAS_PREFIX,
  SASL_PLAIN_USER_PREFIX,
  SECURITY_PROTOCOL_MAP,
  SECURITY_SASL_ENABLED_MECHANISMS,
  SECURITY_SASL_PLAIN_JAAS_CONFIG,
  SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG,
  type SecurityProtocol,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_DELAY,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_WINDOW,
  SLUICE_SECURITY_AUTHENTICATION_MAX_FAILURES,
  SLUICE_SECURITY_SASL_INTERNAL_PASSWORD,
  SLUICE_SECURITY_SASL_INTERNAL_USERNAME,
  SLUICE_SECURITY_SSL_CA,
  SLUICE_SECURITY_SSL_CA_FILE,
  SLUICE_SECURITY_SSL_CERTIFICATE,
  SLUICE_SECURITY_SSL_CERTIFICATE_FILE,
  SLUICE_SECURITY_SSL_CLIENT_AUTH,
  SLUICE_SECURITY_SSL_KEY,
  SLUICE_SECURITY_SSL_KEY_FILE,
  SLUICE_SECURITY_SSL_MIN_VERSION,
  SLUICE_SECURITY_SSL_SERVER_NAME,
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

/** `sluice.security.sasl.plain.user.<name>` passwords: name → password. */
export function plainUserSecrets(config: Configuration): Map<string, string> {
  const out = new Map<string, string>()
  for (const [key, value] of Object.entries(config.rawValues())) {
    if (!key.startsWith(SASL_PLAIN_USER_PREFIX) || key.length === SASL_PLAIN_USER_PREFIX.length) continue
    out.set(key.slice(SASL_PLAIN_USER_PREFIX.length), String(value))
  }
  return out
}

/**
 * The internal credentials given by `sluice.security.sasl.internal.password`, used on the internal
 * listener when it has no listener-specific JAAS config; undefined otherwise.
 */
function generatedInternalCredentials(
  config: Configuration,
  internalName: string,
  mechanism: SaslMechanism,
): { username: string; password: string } | undefined {
  const password = config.getOptional(SLUICE_SECURITY_SASL_INTERNAL_PASSWORD)
  if (password === undefined || password === '') return undefined
  const listenerKey = `${SASL_LISTENER_JAAS_PREFIX}${internalName.toLowerCase()}.${mechanism.toLowerCase()}.jaas.config`
  const listenerText = config.rawValues()[listenerKey]
  if (typeof listenerText === 'string' && listenerText.trim() !== '') return undefined
  return { username: config.get(SLUICE_SECURITY_SASL_INTERNAL_USERNAME), password }
}

function mechanismFactory(
  config: Configuration,
  listenerName: string,
  mechanism: SaslMechanism,
  internal: boolean,
): () => SaslServer {
  const generated = internal ? generatedInternalCredentials(config, listenerName, mechanism) : undefined
  const module = mechanism === PLAIN ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE
  let users: Map<string, string>
  if (generated !== undefined) {
    if (mechanism !== PLAIN)
      throw invalid(
        `'${SLUICE_SECURITY_SASL_INTERNAL_PASSWORD.key}' gives PLAIN credentials, but the internal listener '${listenerName}' enables ${mechanism}: list PLAIN first in '${SECURITY_SASL_ENABLED_MECHANISMS.key}' or give the listener a JAAS config`,
      )
    users = new Map([[generated.username, generated.password]])
  } else {
    const entries = listenerJaas(config, listenerName, mechanism)
    users = entries === undefined ? new Map<string, string>() : jaasUsers(entries, module)
    // Client users kept as one secret each; never on the internal listener.
    if (mechanism === PLAIN && !internal) for (const [u, p] of plainUserSecrets(config)) users.set(u, p)
  }
  if (users.size === 0) {
    throw invalid(
      `Listener '${listenerName}' uses SASL/${mechanism} but no JAAS config gives it users: set '${mechanism === PLAIN ? SECURITY_SASL_PLAIN_JAAS_CONFIG.key : SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG.key}' to '${module} required user_<name>="..." ...;'${mechanism === PLAIN ? ` or '${SASL_PLAIN_USER_PREFIX}<name>' secrets` : ''}`,
    )
  }
  if (mechanism === PLAIN) return () => new PlainSaslServer(users)
  const credentials = new Map([...users].map(([u, text]) => [u, parseScramCredential(text, u)]))
  return () => new ScramSaslServer(credentials)
}

/** A PEM given as text or as a file, not both. */
function pemSource(
  config: Configuration,
  text: typeof SLUICE_SECURITY_SSL_CERTIFICATE,
  file: typeof SLUICE_SECURITY_SSL_CERTIFICATE_FILE,
): { text?: string; file?: string } {
  const t = config.getOptional(text)
  const f = config.getOptional(file)
  if (t !== undefined && f !== undefined) throw invalid(`Set '${text.key}' or '${file.key}', not both`)
  return { ...(t === undefined ? {} : { text: t }), ...(f === undefined ? {} : { file: f }) }
}

function tlsCredentials(config: Configuration, listenerName: string): TlsCredentials {
  const cert = pemSource(config, SLUICE_SECURITY_SSL_CERTIFICATE, SLUICE_SECURITY_SSL_CERTIFICATE_FILE)
  const key = pemSource(config, SLUICE_SECURITY_SSL_KEY, SLUICE_SECURITY_SSL_KEY_FILE)
  const ca = pemSource(config, SLUICE_SECURITY_SSL_CA, SLUICE_SECURITY_SSL_CA_FILE)
  if ((cert.text ?? cert.file) === undefined || (key.text ?? key.file) === undefined) {
    throw invalid(
      `Listener '${listenerName}' uses TLS: set '${SLUICE_SECURITY_SSL_CERTIFICATE_FILE.key}' and '${SLUICE_SECURITY_SSL_KEY_FILE.key}' (or the PEM text in the secrets '${SLUICE_SECURITY_SSL_CERTIFICATE.key}' and '${SLUICE_SECURITY_SSL_KEY.key}')`,
    )
  }
  const clientAuth = config.get(SLUICE_SECURITY_SSL_CLIENT_AUTH)
  if (clientAuth !== 'none' && (ca.text ?? ca.file) === undefined)
    throw invalid(
      `'${SLUICE_SECURITY_SSL_CLIENT_AUTH.key}=${clientAuth}' needs '${SLUICE_SECURITY_SSL_CA_FILE.key}' (or '${SLUICE_SECURITY_SSL_CA.key}')`,
    )
  return new TlsCredentials({
    clientAuth,
    minVersion: config.get(SLUICE_SECURITY_SSL_MIN_VERSION),
    ...(cert.file === undefined ? {} : { certificateFile: cert.file }),
    ...(cert.text === undefined ? {} : { certificate: cert.text }),
    ...(key.file === undefined ? {} : { keyFile: key.file }),
    ...(key.text === undefined ? {} : { key: key.text }),
    ...(ca.file === undefined ? {} : { caFile: ca.file }),
    ...(ca.text === undefined ? {} : { ca: ca.text }),
  })
}

/**
 * With `authorizer.enabled`, the internal listener's sessions bypass every ACL. A server whose only
 * listener is the internal one would let every client bypass them: refused. An internal listener
 * that does not authenticate its peers (PLAINTEXT, or SSL without required client certificates)
 * trusts whoever can connect to it: logged as a warning at start.
 */
function checkAuthorizerListeners(
  config: Configuration,
  listenerNames: readonly string[],
  protocols: ReadonlyMap<string, SecurityProtocol>,
  logger: AuthLogger,
): void {
  if (!config.get(AUTHORIZER_ENABLED)) return
  const internalName = config.get(INTERNAL_LISTENER_NAME)
  if (!listenerNames.includes(internalName)) return
  if (listenerNames.every(n => n === internalName))
    throw invalid(
      `'${AUTHORIZER_ENABLED.key}' is true, but the only listener '${internalName}' is the internal listener ('${INTERNAL_LISTENER_NAME.key}'), whose sessions bypass ACLs: every client would. Add a client listener to 'bind.listeners' (e.g. CLIENT) and keep '${internalName}' for the servers`,
    )
  const protocol = protocols.get(internalName) ?? 'PLAINTEXT'
  const authenticated =
    usesSasl(protocol) || (protocol === 'SSL' && config.get(SLUICE_SECURITY_SSL_CLIENT_AUTH) === 'required')
  if (!authenticated)
    logger.warn(
      `'${AUTHORIZER_ENABLED.key}' is true, but the internal listener '${internalName}' is ${protocol} without authentication: whoever can connect to it bypasses every ACL. Give it SASL (or SSL with '${SLUICE_SECURITY_SSL_CLIENT_AUTH.key}=required') and keep it off the client network`,
      { listener: internalName, protocol },
    )
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
  checkAuthorizerListeners(config, listenerNames, protocols, logger)
  const internalName = config.get(INTERNAL_LISTENER_NAME)
  const mechanisms = config.get(SECURITY_SASL_ENABLED_MECHANISMS) as SaslMechanism[]
  const out = new Map<string, ListenerSecurity>()
  let tls: TlsCredentials | undefined
  for (const listenerName of listenerNames) {
    const protocol = protocols.get(listenerName) ?? 'PLAINTEXT'
    const sasl = usesSasl(protocol)
      ? new SaslAuthenticator({
          listenerName,
          mechanisms: new Map(
            mechanisms.map(m => [
              m,
              mechanismFactory(config, listenerName, m, listenerName === internalName),
            ]),
          ),
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
    const ca = pemSource(config, SLUICE_SECURITY_SSL_CA, SLUICE_SECURITY_SSL_CA_FILE)
    const cert = pemSource(config, SLUICE_SECURITY_SSL_CERTIFICATE, SLUICE_SECURITY_SSL_CERTIFICATE_FILE)
    const key = pemSource(config, SLUICE_SECURITY_SSL_KEY, SLUICE_SECURITY_SSL_KEY_FILE)
    const serverName = config.getOptional(SLUICE_SECURITY_SSL_SERVER_NAME)
    out.tls = {
      ...(ca.file === undefined ? {} : { caFile: ca.file }),
      ...(ca.text === undefined ? {} : { ca: ca.text }),
      ...(cert.file === undefined || key.file === undefined
        ? {}
        : { certificateFile: cert.file, keyFile: key.file }),
      ...(cert.text === undefined || key.text === undefined ? {} : { certificate: cert.text, key: key.text }),
      ...(serverName === undefined ? {} : { serverName }),
    }
  }
  if (usesSasl(protocol)) {
    const mechanism = (config.get(SECURITY_SASL_ENABLED_MECHANISMS) as SaslMechanism[])[0] ?? PLAIN
    const generated = generatedInternalCredentials(config, internalName, mechanism)
    if (generated !== undefined && mechanism === PLAIN) {
      out.sasl = { mechanism, ...generated }
      return out
    }
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
