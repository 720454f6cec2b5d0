import { createServer } from 'node:net'
import { ConnectionPool } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { Connection } from '../connection.js'
import { FakeCluster } from '../testing/fake-cluster.js'
import { MetadataUpdater } from './metadata-updater.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startCluster() {
  const cluster = await FakeCluster.start({ tabletServers: 2 })
  cleanups.push(() => cluster.close())
  return cluster
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise(resolve => server.close(resolve))
  return typeof address === 'object' && address !== null ? address.port : 0
}

function updater(bootstrap: { host: string; port: number }[], requestTimeoutMs = 2000) {
  const pool = new ConnectionPool({ requestTimeoutMs, connectTimeoutMs: requestTimeoutMs })
  cleanups.push(() => pool.close())
  return new MetadataUpdater(pool, { bootstrapServers: bootstrap, requestTimeoutMs })
}

const address = (hostPort: string) => ({ host: '127.0.0.1', port: Number(hostPort.split(':')[1]) })

describe('MetadataUpdater', () => {
  it('bootstraps through the first bootstrap server that answers', async () => {
    const cluster = await startCluster()
    const metadata = updater([
      { host: '127.0.0.1', port: await deadPort() },
      address(cluster.bootstrapServers),
    ])
    const snapshot = await metadata.initialize()
    expect([...snapshot.tabletServers.keys()]).toEqual([1, 2])
    expect(snapshot.coordinator?.id).toBe(0)
  })

  it('retries while the cluster reports no tablet servers, and gives up after the request timeout', async () => {
    const cluster = await startCluster()
    const servers = cluster.state.tabletServers
    cluster.state.tabletServers = []
    const metadata = updater([address(cluster.bootstrapServers)], 300)
    await expect(metadata.initialize()).rejects.toMatchObject({
      errorName: 'NETWORK_EXCEPTION',
      message: expect.stringContaining('no tablet servers'),
    })
    expect(cluster.stats.metadataRequests).toBeGreaterThan(1)

    const patient = updater([address(cluster.bootstrapServers)], 5000)
    const initializing = patient.initialize()
    setTimeout(() => {
      cluster.state.tabletServers = servers
    }, 100)
    expect((await initializing).tabletServers.size).toBe(2)
  })

  it('fails Connection.create with NETWORK_EXCEPTION when no bootstrap server answers', async () => {
    const port = await deadPort()
    await expect(
      Connection.create({ 'bootstrap.servers': `127.0.0.1:${port}`, 'client.request-timeout': '200ms' }),
    ).rejects.toMatchObject({ errorName: 'NETWORK_EXCEPTION' })
  })

  it('shares one request among identical concurrent refreshes', async () => {
    const cluster = await startCluster()
    const metadata = updater([address(cluster.bootstrapServers)])
    await metadata.initialize()
    const before = cluster.stats.metadataRequests
    await Promise.all([metadata.update({}), metadata.update({}), metadata.update({})])
    expect(cluster.stats.metadataRequests).toBe(before + 1)
  })

  it('surfaces a missing table as TABLE_NOT_EXIST without retrying', async () => {
    const cluster = await startCluster()
    const metadata = updater([address(cluster.bootstrapServers)])
    await metadata.initialize()
    const before = cluster.stats.metadataRequests
    await expect(
      metadata.update({ tables: [{ databaseName: 'fluss', tableName: 'missing' }] }),
    ).rejects.toMatchObject({ code: 7 })
    expect(cluster.stats.metadataRequests).toBe(before + 1)
  })

  it('reaches a tablet server again after its connections were cut', async () => {
    const cluster = await startCluster()
    const metadata = updater([address(cluster.bootstrapServers)])
    await metadata.initialize()
    await metadata.requestAnyServer('LIST_DATABASES', { includeSummary: false })
    cluster.dropConnections(1)
    cluster.dropConnections(2)
    const response = await metadata.requestAnyServer('LIST_DATABASES', { includeSummary: false })
    expect(response.databaseName).toEqual(['fluss'])
  })
})
