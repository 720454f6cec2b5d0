import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePassword, LocalCluster, type LocalClusterSecurity } from '@sluice/cli/cluster'
import type { ApiName } from '@sluice/core/rpc'
import { afterAll, beforeEach } from 'vitest'
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
  readonly java: ProcessDriver
  readonly python: ProcessDriver
  readonly sdk: SdkDriver
  /** The Java and Python drivers as another user of a secured cluster. */
  as(user: string): { java: ProcessDriver; python: ProcessDriver }
  /** The last lines of every server log (for failure reports). */
  logs(): string
  stop(): Promise<void>
}

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

/**
 * The security of a compat cluster: the given one, else SASL + ACLs with an `admin` super user when
 * SLUICE_COMPAT_SECURITY=sasl (every suite then runs through authenticated official clients).
 */
function compatSecurity(security?: LocalClusterSecurity): LocalClusterSecurity | undefined {
  if (security !== undefined) return security
  if (process.env.SLUICE_COMPAT_SECURITY !== 'sasl') return undefined
  return { users: { [COMPAT_ADMIN]: generatePassword() }, superUsers: [COMPAT_ADMIN] }
}

/**
 * Starts a LocalCluster (local AWS, a coordinator, three tablet servers from the compiled services)
 * and the three drivers. The data directory is removed on stop unless SLUICE_COMPAT_KEEP=1. On a
 * secured cluster the drivers connect as `admin`.
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
  const security = compatSecurity(options.security)
  const cluster = await LocalCluster.start({
    dataDir,
    tabletServers: TABLET_SERVERS,
    coordinatorPort: 0,
    ...(security === undefined ? {} : { security }),
    ...(options.serverConfig === undefined ? {} : { serverConfig: options.serverConfig }),
  })
  const admin = security === undefined ? {} : cluster.clientConfig(COMPAT_ADMIN)
  let sdk: SdkDriver
  try {
    sdk = await SdkDriver.connect(cluster.bootstrapServers, admin)
  } catch (e) {
    await cluster.stop()
    throw e
  }
  const driversAs = (conf: Readonly<Record<string, string>>) => ({
    java: new ProcessDriver('java', java, cluster.bootstrapServers, scratchDir, conf),
    python: new ProcessDriver('python', python, cluster.bootstrapServers, scratchDir, pythonSaslConf(conf)),
  })
  return {
    cluster,
    ...driversAs(admin),
    as: user => driversAs(cluster.clientConfig(user)),
    sdk,
    logs: () => `cluster data in ${dataDir}\n${clusterLogTail(dataDir)}`,
    async stop() {
      await sdk.close().catch(() => undefined)
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
  beforeEach(ctx => {
    ctx.onTestFailed(() => console.error(env.logs()))
  })
  await env.java.createDatabase(db).catch(async e => {
    await env.stop()
    throw e
  })
  return { env, apis, db }
}
