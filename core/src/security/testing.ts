import { fileURLToPath } from 'node:url'
import { PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE } from './jaas.js'
import { scramCredential } from './scram.js'

/** A committed test certificate or key (see testdata/make-certs.sh): 'ca.pem', 'server.key', ... */
export function testCertFile(name: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url))
  // dist/security → src/security/testdata when running compiled code.
  return `${here.replace(/\/dist\/security\/?$/, '/src/security')}/testdata/${name}`.replace(/\/+/g, '/')
}

/** A PLAIN JAAS config with `username`/`password` (the server's own) and `user_<name>` entries. */
export function plainJaas(
  users: Readonly<Record<string, string>>,
  own?: { username: string; password: string },
) {
  const q = (s: string) => JSON.stringify(s)
  const self = own === undefined ? '' : ` username=${q(own.username)} password=${q(own.password)}`
  const entries = Object.entries(users).map(([u, p]) => ` user_${u}=${q(p)}`)
  return `${PLAIN_LOGIN_MODULE} required${self}${entries.join('')};`
}

/** A SCRAM-SHA-256 JAAS config of salted credentials for the given passwords. */
export function scramJaas(users: Readonly<Record<string, string>>) {
  const entries = Object.entries(users).map(([u, p]) => ` user_${u}="${scramCredential(p)}"`)
  return `${SCRAM_LOGIN_MODULE} required${entries.join('')};`
}
