import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SCRAM_LOGIN_MODULE } from '../security/jaas.js'
import { scramCredential } from '../security/scram.js'

export { plainServerJaas as plainJaas } from '../security/jaas.js'

/** A committed test certificate or key (see security/testdata/make-certs.sh): 'ca.pem', 'server.key', ... */
export function testCertFile(name: string): string {
  const here = fileURLToPath(new URL('.', import.meta.url))
  // dist/testing → src/testing when running compiled code.
  return join(here.replace(/\/dist\/testing\/?$/, '/src/testing'), '..', 'security', 'testdata', name)
}

/** A SCRAM-SHA-256 JAAS config of salted credentials for the given passwords. */
export function scramJaas(users: Readonly<Record<string, string>>) {
  const entries = Object.entries(users).map(([u, p]) => ` user_${u}="${scramCredential(p)}"`)
  return `${SCRAM_LOGIN_MODULE} required${entries.join('')};`
}
