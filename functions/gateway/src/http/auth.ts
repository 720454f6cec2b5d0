import { timingSafeEqual } from 'node:crypto'
import {
  type Configuration,
  GATEWAY_SECURITY_AUTHENTICATION,
  GATEWAY_SECURITY_TOKENS,
  GATEWAY_SECURITY_TRUSTED_HEADER_NAME,
  GATEWAY_SECURITY_USERS,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { GatewayError } from '../errors/gateway-error.js'
import type { Authenticator, Principal } from '../types.js'

const ANONYMOUS: Principal = { name: 'anonymous', via: 'trust' }

function unauthenticated(message: string, scheme: string): GatewayError {
  return new GatewayError('unauthenticated', message, { headers: { 'www-authenticate': scheme } })
}

/** `a:b,c:d` → [[a, b], [c, d]]; a malformed entry is a configuration error. */
function pairs(raw: string | undefined, key: string): [string, string][] {
  if (raw === undefined || raw.trim() === '') {
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `'${key}' must be set for this authentication mode.`)
  }
  return raw.split(',').map(entry => {
    const at = entry.indexOf(':')
    if (at <= 0 || at === entry.length - 1) {
      throw new FlussError('INVALID_CONFIG_EXCEPTION', `'${key}' entries must look like 'a:b'.`)
    }
    return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()]
  })
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The authenticator `gateway.security.authentication` selects: trust (everyone is `anonymous`),
 * token (`Authorization: Bearer <token>` against `gateway.security.tokens` 'token:user' entries),
 * password (HTTP Basic against `gateway.security.users` 'user:secret' entries) or trusted-header
 * (a fronting proxy names the user in `gateway.security.trusted-header.name`).
 */
export function configuredAuthenticator(config: Configuration): Authenticator {
  const mode = config.get(GATEWAY_SECURITY_AUTHENTICATION)
  switch (mode) {
    case 'trust':
      return () => ANONYMOUS
    case 'token': {
      const tokens = pairs(config.getOptional(GATEWAY_SECURITY_TOKENS), GATEWAY_SECURITY_TOKENS.key)
      return c => {
        const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')
        if (m === null)
          throw unauthenticated('A bearer token is required (Authorization: Bearer <token>).', 'Bearer')
        const hit = tokens.find(([token]) => sameSecret(token, m[1]))
        if (hit === undefined) throw unauthenticated('The bearer token is not valid.', 'Bearer')
        return { name: hit[1], via: 'token' }
      }
    }
    case 'password': {
      const users = pairs(config.getOptional(GATEWAY_SECURITY_USERS), GATEWAY_SECURITY_USERS.key)
      return c => {
        const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(c.req.header('authorization') ?? '')
        const decoded = m === null ? '' : Buffer.from(m[1], 'base64').toString('utf8')
        const at = decoded.indexOf(':')
        const [user, secret] = at < 0 ? ['', ''] : [decoded.slice(0, at), decoded.slice(at + 1)]
        const hit = users.find(([u, s]) => u === user && sameSecret(s, secret))
        if (hit === undefined)
          throw unauthenticated('Valid user credentials are required.', 'Basic realm="sluice"')
        return { name: hit[0], via: 'password' }
      }
    }
    case 'trusted-header': {
      const header = config.get(GATEWAY_SECURITY_TRUSTED_HEADER_NAME)
      return c => {
        const user = c.req.header(header)?.trim()
        if (user === undefined || user === '')
          throw unauthenticated(`The ${header} header is required.`, 'Trusted-Header')
        return { name: user, via: 'trusted-header' }
      }
    }
  }
}
