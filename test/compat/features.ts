import { ApiKeys, type ApiName, ClientConnection } from '@sluice/core/rpc'
import { it } from 'vitest'
import type { CompatEnv } from './harness.js'

/** The APIs the running tablet servers and coordinator advertise in ApiVersions. */
export async function advertisedApis(env: CompatEnv): Promise<Set<ApiName>> {
  const endpoints = [env.cluster.coordinators[0], env.cluster.tablet(1)].map(s => ({
    host: s.host,
    port: s.port,
  }))
  const advertised = new Set<ApiName>()
  for (const endpoint of endpoints) {
    const connection = await ClientConnection.connect(endpoint)
    try {
      const versions = connection.serverApiVersions
      for (const name of Object.keys(ApiKeys) as ApiName[]) {
        if (versions?.has(ApiKeys[name])) advertised.add(name)
      }
    } finally {
      connection.close()
    }
  }
  return advertised
}

type TestFn = () => Promise<void>

/**
 * `it` when the servers advertise every API in `needed`; otherwise a skipped test whose title says
 * which APIs are missing (so a missing server feature never shows up as a passing test).
 */
export function itWhenServed(
  advertised: ReadonlySet<ApiName>,
  needed: readonly ApiName[],
): (title: string, fn: TestFn, timeoutMs?: number) => void {
  const missing = needed.filter(name => !advertised.has(name))
  if (missing.length === 0) return (title, fn, timeoutMs) => it(title, fn, timeoutMs)
  const reason = `SKIPPED: the servers do not advertise ${missing.join(', ')} yet`
  return (title, fn) => it.skip(`${title} [${reason}]`, fn)
}
