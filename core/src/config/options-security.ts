import { option } from './option.js'

/**
 * Security of the RPC listeners: authentication protocols per listener (Fluss's keys), SASL
 * credentials, failed-attempt limits, TLS (ours: Fluss has none), and the client side of each.
 */

/** Per-listener protocols: Fluss's PLAINTEXT and SASL, plus TLS variants of both. */
export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SASL', 'SSL', 'SASL_SSL'] as const
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number]
export const SASL_MECHANISM_NAMES = ['PLAIN', 'SCRAM-SHA-256'] as const

/** Listener-specific JAAS keys: `security.sasl.listener.name.<listener>.<mechanism>.jaas.config`. */
export const SASL_LISTENER_JAAS_PREFIX = 'security.sasl.listener.name.'

/**
 * Passwords of SASL/PLAIN users of the client listeners, one secret key per user:
 * `sluice.security.sasl.plain.user.<name>` = the password. They add to the users of
 * `security.sasl.plain.jaas.config` on every SASL listener but the internal one.
 */
export const SASL_PLAIN_USER_PREFIX = 'sluice.security.sasl.plain.user.'

export const SECURITY_PROTOCOL_MAP = option('security.protocol.map')
  .string()
  .matching(
    /^\s*$|^\s*[A-Za-z0-9_-]+\s*:\s*(PLAINTEXT|SASL|SSL|SASL_SSL)\s*(,\s*[A-Za-z0-9_-]+\s*:\s*(PLAINTEXT|SASL|SSL|SASL_SSL)\s*)*$/i,
    "'LISTENER:PROTOCOL' pairs separated by commas, protocols PLAINTEXT, SASL, SSL or SASL_SSL",
  )
  .default('')
  .inScope('server')
  .description(
    "Protocol per listener, as 'LISTENER:PROTOCOL' pairs separated by commas (e.g. 'CLIENT:SASL,INTERNAL:SASL'). PLAINTEXT and SASL are Fluss's; SSL and SASL_SSL add TLS. Listeners not named use PLAINTEXT.",
  )

export const SECURITY_SASL_ENABLED_MECHANISMS = option('security.sasl.enabled.mechanisms')
  .enumList(SASL_MECHANISM_NAMES)
  .default(['PLAIN'])
  .inScope('server')
  .description(
    'SASL mechanisms SASL listeners accept: PLAIN (Fluss) and SCRAM-SHA-256 (Sluice SDK). The first one is also what servers use on the internal listener.',
  )

export const SECURITY_SASL_PLAIN_JAAS_CONFIG = option('security.sasl.plain.jaas.config')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description(
    'JAAS config of SASL/PLAIN: `org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required user_<name>="<password>" ...;`. A listener-specific `security.sasl.listener.name.<listener>.plain.jaas.config` wins; on the internal listener its `username`/`password` are the credentials servers present to each other.',
  )

export const SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG = option('security.sasl.scram-sha-256.jaas.config')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description(
    'JAAS config of SCRAM-SHA-256: `io.sluice.security.ScramLoginModule required user_<name>="<iterations>:<salt>:<storedKey>:<serverKey>" ...;` (salted credentials, no passwords; `scramCredential()` in the SDK makes them).',
  )

export const SLUICE_SECURITY_SASL_INTERNAL_USERNAME = option('sluice.security.sasl.internal.username')
  .string()
  .default('sluice-internal')
  .inScope('server')
  .description(
    'User the servers authenticate as on a SASL internal listener when `sluice.security.sasl.internal.password` gives the internal credentials.',
  )

export const SLUICE_SECURITY_SASL_INTERNAL_PASSWORD = option('sluice.security.sasl.internal.password')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description(
    'Password of the internal credentials: on a SASL internal listener with no listener-specific JAAS config, the only user accepted is `sluice.security.sasl.internal.username` with this password, and servers present the same to each other (PLAIN). Meant for a generated secret (Secrets Manager).',
  )

export const SLUICE_SECURITY_AUTHENTICATION_MAX_FAILURES = option(
  'sluice.security.authentication.max-failures',
)
  .int()
  .default(10)
  .range(1, 1_000_000)
  .inScope('server')
  .description(
    'Failed authentications one client address may make within `sluice.security.authentication.failure-window`; beyond it, AUTHENTICATE is refused unchecked until the window has passed.',
  )

export const SLUICE_SECURITY_AUTHENTICATION_FAILURE_WINDOW = option(
  'sluice.security.authentication.failure-window',
)
  .duration()
  .default('1min')
  .range(1, '1d')
  .inScope('server')
  .description('The sliding window over which failed authentications are counted per client address.')

export const SLUICE_SECURITY_AUTHENTICATION_FAILURE_DELAY = option(
  'sluice.security.authentication.failure-delay',
)
  .duration()
  .default('100ms')
  .range(0, '10s')
  .inScope('server')
  .description('How long the answer to a failed AUTHENTICATE is held back (slows down password guessing).')

export const SLUICE_SECURITY_SSL_CERTIFICATE_FILE = option('sluice.security.ssl.certificate-file')
  .string()
  .noDefault()
  .inScope('server')
  .description('PEM file with the server certificate (and chain) of SSL and SASL_SSL listeners.')

export const SLUICE_SECURITY_SSL_KEY_FILE = option('sluice.security.ssl.key-file')
  .string()
  .noDefault()
  .inScope('server')
  .description('PEM file with the private key of `sluice.security.ssl.certificate-file`.')

export const SLUICE_SECURITY_SSL_CERTIFICATE = option('sluice.security.ssl.certificate')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description(
    'The server certificate (and chain) as PEM text, instead of `sluice.security.ssl.certificate-file`: for certificates kept in a secret (`SLUICE_SECRETS`, AWS Secrets Manager). Renewed by restarting the server with the new secret.',
  )

export const SLUICE_SECURITY_SSL_KEY = option('sluice.security.ssl.key')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description('The private key of `sluice.security.ssl.certificate` as PEM text.')

export const SLUICE_SECURITY_SSL_CA = option('sluice.security.ssl.ca')
  .string()
  .noDefault()
  .isSecret()
  .inScope('server')
  .description(
    'PEM text of the certificate authorities, instead of `sluice.security.ssl.ca-file` (client certificates are verified against it, and servers verify each other with it on a TLS internal listener).',
  )

export const SLUICE_SECURITY_SSL_SERVER_NAME = option('sluice.security.ssl.server-name')
  .string()
  .noDefault()
  .inScope('server')
  .description(
    'The name a server verifies in the certificate of another server on a TLS internal listener, instead of the host it connects to: for one certificate shared by every server, some reached by IP address.',
  )

export const SLUICE_SECURITY_SSL_CA_FILE = option('sluice.security.ssl.ca-file')
  .string()
  .noDefault()
  .inScope('server')
  .description('PEM bundle of the certificate authorities client certificates are verified against.')

export const SLUICE_SECURITY_SSL_CLIENT_AUTH = option('sluice.security.ssl.client-auth')
  .enum(['none', 'requested', 'required'] as const)
  .default('none')
  .inScope('server')
  .description(
    "Client certificates on TLS listeners: 'none', 'requested' (verified when sent) or 'required'. On an SSL listener the principal of a verified certificate is `User:<subject CN>`.",
  )

export const SLUICE_SECURITY_SSL_MIN_VERSION = option('sluice.security.ssl.min-version')
  .enum(['TLSv1.2', 'TLSv1.3'] as const)
  .default('TLSv1.2')
  .inScope('server')
  .description('Oldest TLS version TLS listeners accept.')

export const SLUICE_SECURITY_SSL_RELOAD_INTERVAL = option('sluice.security.ssl.reload-interval')
  .duration()
  .default('1min')
  .range(100, '1d')
  .inScope('server')
  .description(
    'How often the certificate, key and CA files are checked for changes; a renewed certificate applies to new connections without dropping open ones.',
  )

export const SLUICE_ACL_REFRESH_INTERVAL = option('sluice.acl.refresh-interval')
  .duration()
  .default('2s')
  .range(10, '1h')
  .inScope('cluster')
  .description(
    "How often every server checks the ACLs' change counter in the metadata store and reloads them when it moved: how long an ACL change takes to reach other servers. `acl.notification.expiration-time` bounds staleness: ACLs are reloaded at least that often, and a server that could not refresh them for that long refuses every principal but super users.",
  )

const client = (key: string) => option(key).inScope('client')

export const CLIENT_SECURITY_PROTOCOL = client('client.security.protocol')
  .enum(SECURITY_PROTOCOLS)
  .default('PLAINTEXT')
  .description(
    "Protocol of the client's connections: 'PLAINTEXT', 'SASL' (Fluss's), 'SSL' or 'SASL_SSL' (TLS; Sluice SDK only).",
  )

export const CLIENT_SECURITY_SASL_MECHANISM = client('client.security.sasl.mechanism')
  .enum(SASL_MECHANISM_NAMES)
  .default('PLAIN')
  .description('SASL mechanism: PLAIN (Fluss) or SCRAM-SHA-256.')

export const CLIENT_SECURITY_SASL_JAAS_CONFIG = client('client.security.sasl.jaas.config')
  .string()
  .noDefault()
  .isSecret()
  .description(
    'JAAS login configuration with the credentials, e.g. `org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required username="alice" password="...";`.',
  )

export const CLIENT_SECURITY_SASL_USERNAME = client('client.security.sasl.username')
  .string()
  .noDefault()
  .description('SASL user name; an alternative to the JAAS configuration (set with the password).')

export const CLIENT_SECURITY_SASL_PASSWORD = client('client.security.sasl.password')
  .string()
  .noDefault()
  .isSecret()
  .description('SASL password; an alternative to the JAAS configuration (set with the user name).')

export const CLIENT_SECURITY_SSL_CA_FILE = client('client.security.ssl.ca-file')
  .string()
  .noDefault()
  .description(
    'PEM bundle of the certificate authorities server certificates are verified against (SSL, SASL_SSL); default the system roots.',
  )

export const CLIENT_SECURITY_SSL_SERVER_NAME = client('client.security.ssl.server-name')
  .string()
  .noDefault()
  .description(
    'The name every server certificate must carry, instead of the host connected to (SSL, SASL_SSL): for clusters whose servers share one certificate and advertise IP addresses (`sluice.security.ssl.server-name` of the servers).',
  )

export const CLIENT_SECURITY_SSL_CERTIFICATE_FILE = client('client.security.ssl.certificate-file')
  .string()
  .noDefault()
  .description('PEM client certificate for servers that ask for one (mutual TLS).')

export const CLIENT_SECURITY_SSL_KEY_FILE = client('client.security.ssl.key-file')
  .string()
  .noDefault()
  .description('PEM private key of `client.security.ssl.certificate-file`.')

export const SECURITY_OPTIONS = [
  SECURITY_PROTOCOL_MAP,
  SECURITY_SASL_ENABLED_MECHANISMS,
  SECURITY_SASL_PLAIN_JAAS_CONFIG,
  SECURITY_SASL_SCRAM_SHA_256_JAAS_CONFIG,
  SLUICE_SECURITY_SASL_INTERNAL_USERNAME,
  SLUICE_SECURITY_SASL_INTERNAL_PASSWORD,
  SLUICE_SECURITY_AUTHENTICATION_MAX_FAILURES,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_WINDOW,
  SLUICE_SECURITY_AUTHENTICATION_FAILURE_DELAY,
  SLUICE_SECURITY_SSL_CERTIFICATE_FILE,
  SLUICE_SECURITY_SSL_KEY_FILE,
  SLUICE_SECURITY_SSL_CERTIFICATE,
  SLUICE_SECURITY_SSL_KEY,
  SLUICE_SECURITY_SSL_CA,
  SLUICE_SECURITY_SSL_SERVER_NAME,
  SLUICE_SECURITY_SSL_CA_FILE,
  SLUICE_SECURITY_SSL_CLIENT_AUTH,
  SLUICE_SECURITY_SSL_MIN_VERSION,
  SLUICE_SECURITY_SSL_RELOAD_INTERVAL,
  SLUICE_ACL_REFRESH_INTERVAL,
  CLIENT_SECURITY_PROTOCOL,
  CLIENT_SECURITY_SASL_MECHANISM,
  CLIENT_SECURITY_SASL_JAAS_CONFIG,
  CLIENT_SECURITY_SASL_USERNAME,
  CLIENT_SECURITY_SASL_PASSWORD,
  CLIENT_SECURITY_SSL_CA_FILE,
  CLIENT_SECURITY_SSL_SERVER_NAME,
  CLIENT_SECURITY_SSL_CERTIFICATE_FILE,
  CLIENT_SECURITY_SSL_KEY_FILE,
] as const
