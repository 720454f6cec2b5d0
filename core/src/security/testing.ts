import { fileURLToPath } from 'node:url'
import { SCRAM_LOGIN_MODULE } from './jaas.js'

export { plainServerJaas as plainJaas } from './jaas.js'

import { scramCredential } from './scram.js'

/** A committed test certificate or key (see testdata/make-certs.sh): 'ca.pem', 'server.key', ... */
export function testCertFile(name: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url))
  // dist/security → src/security/testdata when running compiled code.
  return `${here.replace(/\/dist\/security\/?$/, '/src/security')}/testdata/${name}`.replace(/\/+/g, '/')
}

/** A SCRAM-SHA-256 JAAS config of salted credentials for the given passwords. */
export function scramJaas(users: Readonly<Record<string, string>>) {
  const entries = Object.entries(users).map(([u, p]) => ` user_${u}="${scramCredential(p)}"`)
  return `${SCRAM_LOGIN_MODULE} required${entries.join('')};`
}
