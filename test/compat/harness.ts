import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePassword, LocalCluster, type LocalClusterSecurity } from '@sluice/cli/cluster'
import { isFlussError } from '@sluice/core/errors'
import type { ApiName } from '@sluice/core/rpc'
import { ANONYMOUS, clusterResource } from '@sluice/core/security'
import { afterAll, afterEach, beforeEach } from 'vitest'
import { uniqueName } from '../harness/wait.js'
import { ProcessDriver } from './drivers/process-driver.js'
import { javaCommand, pythonCommand } from './drivers/process-runner.js'
import { SdkDriver } from './drivers/sdk-driver.js'
import { advertisedApis } from './features.js'

const ROOT = new URL('../..', import.meta.url).pathname
const CLUSTER_LOG_TAIL_LINES = 40
const TABLET_SERVERS = 3

/** The super user every driver connects as on a secured cluster. */
export const COMPAT_ADMIN = 'admin'

/** One cluster per test file and a driver per client. */
export interface CompatEnv {
  readonly cluster: LocalCluster
  /** The drivers of the current test (see `protocols`). */
  readonly java: ProcessDriver
  readonly python: ProcessDriver
  readonly sdk: SdkDriver
  /** The Java and Python drivers as another user of a secured cluster. */
  as(user: string): { java: ProcessDriver; python: ProcessDriver }
  /** Client options of the gateway and the headers of its callers (a secured cluster's admin). */
  readonly gateway: {
    readonly clientConfig: Readonly<Record<string, string>>
    readonly headers: Readonly<Record<string, string>>
  }
  /** Which protocol each driver uses in the current test. */
  protocols(): { java: string; python: string; sdk: string }
  /** Moves to the next test's drivers (mixed mode alternates the protocols per test). */
  nextTest(): void
  /** The last lines of every server log (for failure reports). */
  logs(): string
  stop(): Promise<void>
}

/**
 * How the held-over scenarios connect, by SLUICE_COMPAT_SECURITY:
 * - unset (`mixed`, what `npm run test:compat` runs): every server has a SASL `CLIENT` listener, a
 *   SASL `INTERNAL` one and a PLAINTEXT `PLAIN` one, with ACLs on; tests alternate: in one the Java
 *   client speaks SASL (as the `admin` super user) and pyfluss and our SDK PLAINTEXT (anonymous,
 *   allowed by an ACL), in the next the other way round. Every scenario so runs over both
 *   protocols, each client over each protocol across a file, at the cost of one run;
 * - `sasl`: every driver over SASL as `admin`;
 * - `plaintext`: an open cluster, as before security existed.
 */
export type CompatSecurityMode = 'mixed' | 'sasl' | 'plaintext'

export function compatSecurityMode(): CompatSecurityMode {
  const mode = process.env.SLUICE_COMPAT_SECURITY ?? 'mixed'
  if (mode !== 'mixed' && mode !== 'sasl' && mode !== 'plaintext')
    throw new Error(`SLUICE_COMPAT_SECURITY='${mode}': expected mixed (default), sasl or plaintext`)
  return mode
}

/** The PLAINTEXT listener of mixed mode. */
const PLAIN_LISTENER = 'PLAIN'
/** How often servers reload ACLs in mixed mode. */
const ACL_REFRESH_MS = 200

function checkBuilt(): void {
  for (const service of ['coordinator', 'tablet']) {
    const main = join(ROOT, 'services', service, 'dist', 'main.js')
    if (!existsSync(main)) throw new Error(`${main} is missing: build first with \`npx tsc -b\``)
  }
}

/** The last lines of each log file under `<dataDir>/logs`. */
export function clusterLogTail(dataDir: string, lines = CLUSTER_LOG_TAIL_LINES): string {
  const dir = join(dataDir, 'logs')
  if (!existsSync(dir)) return `(no logs under ${dir})`
  return readdirSync(dir)
    .filter(f => f.endsWith('.log'))
    .sort()
    .map(f => {
      const text = readFileSync(join(dir, f), 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
      return `--- ${f} (last ${lines} lines) ---\n${text}`
    })
    .join('\n')
}

/** pyfluss's names of the SASL options. */
function pythonSaslConf(javaConf: Readonly<Record<string, string>>): Record<string, string> {
  if (javaConf['client.security.protocol'] === undefined) return {}
  return {
    'security.protocol': 'sasl',
    'security.sasl.mechanism': javaConf['client.security.sasl.mechanism'],
    'security.sasl.username': javaConf['client.security.sasl.username'],
    'security.sasl.password': javaConf['client.security.sasl.password'],
  }
}

/** The security of a compat cluster: the given one (its own test), else by the mode. */
function compatSecurity(
  mode: CompatSecurityMode,
  security?: LocalClusterSecurity,
): LocalClusterSecurity | undefined {
  if (security !== undefined) return security
  if (mode === 'plaintext') return undefined
  return { users: { [COMPAT_ADMIN]: generatePassword() }, superUsers: [COMPAT_ADMIN] }
}

/** A free loopback port (for a listener whose port clients must know before it starts). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * Starts a LocalCluster (local AWS, a coordinator, three tablet servers from the compiled services)
 * and the three drivers. The data directory is removed on stop unless SLUICE_COMPAT_KEEP=1. On a
 * secured cluster the drivers connect as `admin` (and, in mixed mode, anonymously over PLAINTEXT).
 */
export interface CompatOptions {
  readonly security?: LocalClusterSecurity
  /** Extra server options (FLUSS_CONF of every server). */
  readonly serverConfig?: Readonly<Record<string, string>>
}

export async function startCompatEnv(name: string, options: CompatOptions = {}): Promise<CompatEnv> {
  checkBuilt()
  const java = javaCommand()
  const python = pythonCommand()
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-compat-${name}-`))
  const scratchDir = join(dataDir, 'driver-files')
  mkdirSync(scratchDir, { recursive: true })
  // A suite with its own security runs as it asks; the others by the mode.
  const mode = options.security === undefined ? compatSecurityMode() : 'sasl'
  const security = compatSecurity(mode, options.security)
  const mixed = mode === 'mixed'
  const cluster = await LocalCluster.start({
    dataDir,
    tabletServers: TABLET_SERVERS,
    coordinatorPort: 0,
    ...(security === undefined ? {} : { security }),
    ...(mixed
      ? { extraListeners: [PLAIN_LISTENER], extraListenerPorts: { [PLAIN_LISTENER]: await freePort() } }
      : {}),
    ...(mixed || options.serverConfig !== undefined
      ? {
          serverConfig: {
            ...(mixed ? { 'sluice.acl.refresh-interval': `${ACL_REFRESH_MS}ms` } : {}),
            ...options.serverConfig,
          },
        }
      : {}),
  })
  const admin = security === undefined ? {} : cluster.clientConfig(COMPAT_ADMIN)
  const sdks: SdkDriver[] = []
  try {
    sdks.push(await SdkDriver.connect(cluster.bootstrapServers, admin))
    if (mixed) {
      // The anonymous principal of the PLAINTEXT listener may do everything; admin grants it.
      const results = await sdks[0].connection.getAdmin().createAcls([
        {
          resource: clusterResource(),
          entry: { principal: ANONYMOUS, host: '*', operation: 'ALL', permission: 'ALLOW' },
        },
      ])
      if (results.some(r => r.error !== undefined)) throw results.find(r => r.error)?.error
      sdks.push(await SdkDriver.connect(cluster.bootstrapServersOf(PLAIN_LISTENER)))
      // The SASL listener really refuses an anonymous client (else the mode would prove nothing).
      const anonymous = await SdkDriver.connect(cluster.bootstrapServers).then(
        async d => {
          await d.close()
          return undefined
        },
        (e: unknown) => e,
      )
      if (!isFlussError(anonymous, 'AUTHENTICATE_EXCEPTION'))
        throw new Error(`the SASL listener let an anonymous client in (${String(anonymous)})`)
      // Every server applies the ACL within one refresh interval (ACL_REFRESH below).
      await new Promise(resolve => setTimeout(resolve, 3 * ACL_REFRESH_MS))
    }
  } catch (e) {
    for (const sdk of sdks) await sdk.close().catch(() => undefined)
    await cluster.stop()
    throw e
  }
  const driversAt = (bootstrap: string, conf: Readonly<Record<string, string>>) => ({
    java: new ProcessDriver('java', java, bootstrap, scratchDir, conf),
    python: new ProcessDriver('python', python, bootstrap, scratchDir, pythonSaslConf(conf)),
  })
  const secured = driversAt(cluster.bootstrapServers, admin)
  const plain = mixed ? driversAt(cluster.bootstrapServersOf(PLAIN_LISTENER), {}) : secured
  const [sdkSecured, sdkPlain = sdkSecured] = sdks
  let turn = 0
  const javaSecured = () => !mixed || turn % 2 === 0
  const protocolOf = (isSecured: boolean) =>
    security === undefined ? 'PLAINTEXT' : isSecured ? 'SASL' : 'PLAINTEXT'
  const users = security?.users ?? {}
  return {
    cluster,
    get java() {
      return javaSecured() ? secured.java : plain.java
    },
    get python() {
      return javaSecured() ? plain.python : secured.python
    },
    get sdk() {
      return javaSecured() ? sdkPlain : sdkSecured
    },
    as: user => driversAt(cluster.bootstrapServers, cluster.clientConfig(user)),
    gateway: {
      clientConfig: admin,
      headers:
        security === undefined
          ? {}
          : {
              authorization: `Basic ${Buffer.from(`${COMPAT_ADMIN}:${users[COMPAT_ADMIN]}`).toString('base64')}`,
            },
    },
    protocols: () => ({
      java: protocolOf(javaSecured()),
      python: protocolOf(!javaSecured()),
      sdk: protocolOf(!javaSecured()),
    }),
    nextTest() {
      turn++
    },
    logs: () => `cluster data in ${dataDir}\n${clusterLogTail(dataDir)}`,
    async stop() {
      for (const sdk of sdks) await sdk.close().catch(() => undefined)
      await cluster.stop()
      if (process.env.SLUICE_COMPAT_KEEP !== '1') rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Sets up a test file (call at the top level, with await): its cluster and drivers, a database
 * created through the Java client, the APIs the servers advertise; on a failed test, the server
 * logs are printed; the cluster stops after the file. When the servers lack any of `requiredApis`
 * every test of the file is skipped (see itWhenServed), and vitest runs no hooks for such a file,
 * so the cluster is stopped at once.
 */
export async function compatSuite(
  name: string,
  requiredApis: readonly ApiName[] = [],
  options: CompatOptions = {},
): Promise<{ env: CompatEnv; apis: Set<ApiName>; db: string }> {
  const env = await startCompatEnv(name, options)
  const apis = await advertisedApis(env).catch(async e => {
    await env.stop()
    throw e
  })
  const db = uniqueName(`compat_${name}`)
  if (requiredApis.some(api => !apis.has(api))) {
    await env.stop()
    return { env, apis, db }
  }
  afterAll(async () => {
    await env.stop()
  })
  afterEach(() => env.nextTest())
  beforeEach(ctx => {
    ctx.onTestFailed(() => {
      const p = env.protocols()
      console.error(`drivers: java over ${p.java}, python over ${p.python}, sdk over ${p.sdk}\n${env.logs()}`)
    })
  })
  await env.java.createDatabase(db).catch(async e => {
    await env.stop()
    throw e
  })
  return { env, apis, db }
}
