import { randomBytes } from 'node:crypto'
import { plainServerJaas } from '@sluice/core/security'

/** SASL and ACLs for a local cluster: a CLIENT listener for users, an INTERNAL one for the servers. */
export interface LocalClusterSecurity {
  /** SASL/PLAIN users of the CLIENT listener: name → password. */
  readonly users: Readonly<Record<string, string>>
  /** User names that bypass ACLs (`super.users`). */
  readonly superUsers?: readonly string[]
  /** `authorizer.enabled`; default true. */
  readonly authorizer?: boolean
}

export const CLIENT_LISTENER = 'CLIENT'
export const INTERNAL_LISTENER = 'INTERNAL'
const INTERNAL_USER = 'sluice-internal'

/** A random password (24 URL-safe characters). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}

/**
 * The server options of a secured local cluster: both listeners SASL/PLAIN, the internal one with
 * generated credentials the servers present to each other (and trusted by the authorizer).
 */
export function securedServerConfig(security: LocalClusterSecurity): Record<string, string> {
  const internalPassword = generatePassword()
  return {
    'internal.listener.name': INTERNAL_LISTENER,
    'security.protocol.map': `${CLIENT_LISTENER}:SASL,${INTERNAL_LISTENER}:SASL`,
    'security.sasl.enabled.mechanisms': 'PLAIN',
    'security.sasl.plain.jaas.config': plainServerJaas(security.users),
    [`security.sasl.listener.name.${INTERNAL_LISTENER.toLowerCase()}.plain.jaas.config`]: plainServerJaas(
      { [INTERNAL_USER]: internalPassword },
      { username: INTERNAL_USER, password: internalPassword },
    ),
    'authorizer.enabled': String(security.authorizer ?? true),
    ...(security.superUsers && security.superUsers.length > 0
      ? { 'super.users': security.superUsers.map(u => `User:${u}`).join(';') }
      : {}),
  }
}

/** `bind.listeners` of a secured server: CLIENT first (what the ready line and `bootstrapServers` show). */
export function securedListeners(clientPort: number): string {
  return `${CLIENT_LISTENER}://127.0.0.1:${clientPort},${INTERNAL_LISTENER}://127.0.0.1:0`
}

/** Client options of the Java client (and our SDK) for a user of a secured local cluster. */
export function saslClientConfig(user: string, password: string): Record<string, string> {
  return {
    'client.security.protocol': 'SASL',
    'client.security.sasl.mechanism': 'PLAIN',
    'client.security.sasl.username': user,
    'client.security.sasl.password': password,
  }
}

/**
 * Gateway options of a secured local cluster: the gateway takes the same users over HTTP Basic
 * and checks each caller against the cluster's ACLs (the given client options are its own).
 */
export function securedGatewayConfig(security: LocalClusterSecurity): Record<string, string> {
  const users = Object.entries(security.users).map(([u, p]) => `${u}:${p}`)
  return {
    'gateway.security.authentication': 'password',
    'gateway.security.users': users.join(','),
    'authorizer.enabled': String(security.authorizer ?? true),
    ...(security.superUsers && security.superUsers.length > 0
      ? { 'super.users': security.superUsers.map(u => `User:${u}`).join(';') }
      : {}),
  }
}
