import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalCluster } from '@sluice/cli/cluster'
import { Connection, type Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Catalog } from '@sluice/core/control-plane'
import type { Row } from '@sluice/core/row'
import { plainServerJaas } from '@sluice/core/security'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import type { Benchmark } from '../harness.js'
import { createBenchTable } from './bench-cluster.js'
import { CLIENT_NODE_ARGS, LOOKUP_CONFIG, preloadTable } from './pk-lookup.js'
import { LoadClient } from './pk-lookup-load.js'
import { appendAll, describeTable } from './sdk-append.js'

/**
 * The cost of TLS and of SASL on the wire: one cluster (1 tablet server) with a PLAINTEXT
 * listener and a SECURE one (SSL or SASL), the same workload through each in the same run.
 */
type Protocol = 'SSL' | 'SASL'
const CERTS = new URL('../../../core/src/security/testdata/', import.meta.url).pathname
const WRITER_CONFIG = { 'client.writer.acks': '1', 'client.writer.enable-idempotence': 'false' }
const APPEND_ROWS = 40_000
const LOOKUP_KEYS = 20_000
const LOOKUP_CLIENTS = 50
const LOOKUP_REQUESTS = 60_000
const PASSWORD = 'bench-password'

interface SecureCluster {
  readonly cluster: LocalCluster
  /** Client options for the PLAINTEXT listener and for the SECURE one. */
  readonly plain: Record<string, string>
  readonly secure: Record<string, string>
  stop(): Promise<void>
}

function secureServerConfig(protocol: Protocol): Record<string, string> {
  const tls = {
    'sluice.security.ssl.certificate-file': join(CERTS, 'server.pem'),
    'sluice.security.ssl.key-file': join(CERTS, 'server.key'),
  }
  const sasl = { 'security.sasl.plain.jaas.config': plainServerJaas({ bench: PASSWORD }) }
  return { 'security.protocol.map': `SECURE:${protocol}`, ...(protocol === 'SSL' ? tls : sasl) }
}

function secureClientConfig(protocol: Protocol): Record<string, string> {
  return protocol === 'SSL'
    ? { 'client.security.protocol': 'SSL', 'client.security.ssl.ca-file': join(CERTS, 'ca.pem') }
    : {
        'client.security.protocol': 'SASL',
        'client.security.sasl.username': 'bench',
        'client.security.sasl.password': PASSWORD,
      }
}

async function startSecureCluster(name: string, protocol: Protocol): Promise<SecureCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-bench-${name}-`))
  const cluster = await LocalCluster.start({
    dataDir,
    tabletServers: 1,
    coordinatorPort: 0,
    extraListeners: ['SECURE'],
    serverConfig: secureServerConfig(protocol),
  })
  const stop = async () => {
    await cluster.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const store = cluster.aws.metaStore()
    const lease = await new Catalog(store).activeCoordinator()
    const endpoint = lease?.listeners.find(l => l.listenerName === 'SECURE')
    if (endpoint === undefined) throw new Error('the coordinator has no SECURE listener')
    return {
      cluster,
      plain: { 'bootstrap.servers': cluster.bootstrapServers },
      secure: { 'bootstrap.servers': `${endpoint.host}:${endpoint.port}`, ...secureClientConfig(protocol) },
      stop,
    }
  } catch (e) {
    await stop()
    throw e
  }
}

interface AppendCtx {
  readonly secure: SecureCluster
  readonly rows: Row[]
  readonly connections: Connection[]
  readonly plainTable: Table
  readonly secureTable: Table
}

/** Name suffix, label and target of a protocol's benchmarks (≥ 0.8× plaintext for TLS, 0.97× for SASL). */
function variant(protocol: Protocol) {
  const ratio = protocol === 'SSL' ? 0.8 : 0.97
  return {
    suffix: protocol === 'SSL' ? 'tls' : 'sasl',
    label: protocol === 'SSL' ? 'TLS' : 'SASL/PLAIN',
    target: { ratio, note: `issue #18: ≥ ${ratio}× plaintext` },
    better: 'higher' as const,
    runs: 5,
  }
}

function appendBenchmark(protocol: Protocol): Benchmark<AppendCtx> {
  const { suffix, label, ...common } = variant(protocol)
  return {
    ...common,
    name: `sdk-append-${suffix}`,
    description: `SDK AppendWriter rows/s (${APPEND_ROWS.toLocaleString('en-US')} ~1 KiB rows of ${BENCH_ROW_TYPE.fields.length} columns, ZSTD, 4 buckets, acks=1, flush at end; 1 tablet server) over a ${label} listener vs the PLAINTEXT listener of the same servers, same run.`,
    unit: 'rows/s',
    async setup() {
      await initArrowCodecs()
      const secure = await startSecureCluster(`append-${protocol}`, protocol)
      const connections: Connection[] = []
      try {
        const plain = await Connection.create({ ...secure.plain, ...WRITER_CONFIG })
        connections.push(plain)
        const path = await createBenchTable(plain, describeTable())
        const overSecure = await Connection.create({ ...secure.secure, ...WRITER_CONFIG })
        connections.push(overSecure)
        const { rows } = benchRows(APPEND_ROWS)
        return {
          secure,
          rows,
          connections,
          plainTable: await plain.getTable(path),
          secureTable: await overSecure.getTable(path),
        }
      } catch (e) {
        for (const c of connections) await c.close().catch(() => undefined)
        await secure.stop()
        throw e
      }
    },
    async teardown(ctx) {
      for (const c of ctx.connections) await c.close().catch(() => undefined)
      await ctx.secure.stop()
    },
    subject: {
      name: `AppendWriter over ${label}`,
      async run({ rows, secureTable }) {
        return { value: rows.length / (await appendAll(secureTable, rows)) }
      },
    },
    baseline: {
      name: 'AppendWriter over PLAINTEXT',
      async run({ rows, plainTable }) {
        return { value: rows.length / (await appendAll(plainTable, rows)) }
      },
    },
  }
}

interface LookupCtx {
  readonly secure: SecureCluster
  readonly plainClient: LoadClient
  readonly secureClient: LoadClient
}

function lookupBenchmark(protocol: Protocol): Benchmark<LookupCtx> {
  const { suffix, label, ...common } = variant(protocol)
  const run = async (client: LoadClient) => {
    const r = await client.run(LOOKUP_CLIENTS, LOOKUP_REQUESTS, LOOKUP_KEYS)
    if (r.missing > 0) throw new Error(`${r.missing} preloaded keys were not found`)
    return { value: LOOKUP_REQUESTS / r.seconds, extra: { 'p50 ms': r.p50Ms, 'p99 ms': r.p99Ms } }
  }
  return {
    ...common,
    name: `pk-lookup-${suffix}`,
    description: `SDK Lookuper point lookups/s (${LOOKUP_KEYS.toLocaleString('en-US')} keys with 1 KiB values, ${LOOKUP_CLIENTS} concurrent, ${LOOKUP_REQUESTS.toLocaleString('en-US')} per run, load client in its own process; 1 tablet server) over a ${label} listener vs the PLAINTEXT listener of the same servers, same run.`,
    unit: 'ops/s',
    async setup() {
      await initArrowCodecs()
      const secure = await startSecureCluster(`lookup-${protocol}`, protocol)
      const clients: LoadClient[] = []
      try {
        const connection = await Connection.create({ ...secure.plain, ...LOOKUP_CONFIG })
        let path: { databaseName: string; tableName: string }
        try {
          path = (await preloadTable({ connection }, LOOKUP_KEYS)).getTableInfo().tablePath
        } finally {
          await connection.close()
        }
        for (const config of [secure.plain, secure.secure]) {
          const client = await LoadClient.start({
            config: { ...config, ...LOOKUP_CONFIG },
            database: path.databaseName,
            table: path.tableName,
            nodeArgs: CLIENT_NODE_ARGS,
          })
          clients.push(client)
          await client.run(LOOKUP_CLIENTS, LOOKUP_REQUESTS, LOOKUP_KEYS)
        }
        return { secure, plainClient: clients[0], secureClient: clients[1] }
      } catch (e) {
        for (const c of clients) await c.stop()
        await secure.stop()
        throw e
      }
    },
    async teardown(ctx) {
      await ctx.plainClient.stop()
      await ctx.secureClient.stop()
      await ctx.secure.stop()
    },
    subject: { name: `Lookuper over ${label}`, run: ctx => run(ctx.secureClient) },
    baseline: { name: 'Lookuper over PLAINTEXT', run: ctx => run(ctx.plainClient) },
  }
}

export const sdkAppendTls = appendBenchmark('SSL')
export const sdkAppendSasl = appendBenchmark('SASL')
export const pkLookupTls = lookupBenchmark('SSL')
export const pkLookupSasl = lookupBenchmark('SASL')
