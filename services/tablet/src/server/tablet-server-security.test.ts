import type { FlussError } from '@sluice/core/errors'
import { ClientConnection } from '@sluice/core/rpc'
import { plainServerJaas } from '@sluice/core/security'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { arrowBatch, notifyRequest, rows, TABLE_ID, TestCluster, waitUntil } from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

/** Replication over a SASL internal listener, and the authorization of follower fetches. */
const ASSIGNMENT = { bucket: 0, leader: 1, replicas: [1, 2], isr: [1, 2], leaderEpoch: 1 }
const SERVER_PASSWORD = 'internal-secret'

function securityConfig(ownPassword: string) {
  return {
    'bind.listeners': 'INTERNAL://127.0.0.1:0,CLIENT://127.0.0.1:0',
    'internal.listener.name': 'INTERNAL',
    'security.protocol.map': 'INTERNAL:SASL,CLIENT:SASL',
    'security.sasl.plain.jaas.config': plainServerJaas({ alice: 'alice-pw' }),
    'security.sasl.listener.name.internal.plain.jaas.config': plainServerJaas(
      { server: SERVER_PASSWORD },
      { username: 'server', password: ownPassword },
    ),
    'sluice.security.authentication.failure-delay': '0ms',
    'authorizer.enabled': true,
  }
}

describe('tablet servers with a SASL internal listener', () => {
  let cluster: TestCluster
  const connections: ClientConnection[] = []

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
  })

  afterEach(async () => {
    for (const c of connections.splice(0)) c.close()
    await cluster.close()
  })

  async function connect(server: TabletServer, listener: string, username: string, password: string) {
    const { port } = server.endpoints.find(e => e.listenerName === listener) ?? server.endpoints[0]
    const c = await ClientConnection.connect({
      host: '127.0.0.1',
      port,
      security: { sasl: { mechanism: 'PLAIN', username, password } },
    })
    connections.push(c)
    return c
  }

  async function twoServers(followerPassword: string) {
    const start = (id: number, password: string) =>
      cluster.startServer(id, undefined, securityConfig(password), { metaStore: cluster.store })
    const leader = await start(1, SERVER_PASSWORD)
    const follower = await start(2, followerPassword)
    const servers = [leader, follower].map(s => {
      const internal = s.endpoints.find(e => e.listenerName === 'INTERNAL') ?? s.endpoints[0]
      return {
        nodeId: s.serverId,
        host: internal.host,
        port: internal.port,
        listeners: s.endpoints.map(e => `${e.listenerName}://${e.host}:${e.port}`).join(','),
      }
    })
    for (const s of [leader, follower]) {
      const c = await connect(s, 'INTERNAL', 'server', SERVER_PASSWORD)
      await c.request('UPDATE_METADATA', { coordinatorEpoch: 1, tabletServers: servers })
      await c.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    }
    const toLeader = await connect(leader, 'INTERNAL', 'server', SERVER_PASSWORD)
    await toLeader.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 5000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(0, 3)) }],
    })
    const followerLog = () => follower.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet
    return { leader, follower, followerLog }
  }

  it('replicates when the follower presents the internal credentials', async () => {
    const { followerLog } = await twoServers(SERVER_PASSWORD)
    await waitUntil(() => followerLog()?.logEndOffset === 3)
  })

  it('a follower with wrong internal credentials cannot fetch', async () => {
    const { followerLog } = await twoServers('wrong-secret')
    await new Promise(r => setTimeout(r, 1000))
    expect(followerLog()?.logEndOffset).toBe(0)
  })

  it('refuses follower fetches from client principals, and internal APIs on the client listener', async () => {
    const { leader } = await twoServers(SERVER_PASSWORD)
    const alice = await connect(leader, 'CLIENT', 'alice', 'alice-pw')
    const fetch = await alice
      .request('FETCH_LOG', {
        followerServerId: 2,
        maxBytes: 1 << 20,
        tablesReq: [
          {
            tableId: TABLE_ID,
            projectionPushdownEnabled: false,
            bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
          },
        ],
      })
      .catch(e => e as FlussError)
    expect((fetch as FlussError).errorName).toBe('AUTHORIZATION_EXCEPTION')
    expect((fetch as FlussError).message).toMatch(/Follower fetches/)
    const notify = await alice
      .request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
      .catch(e => e as FlussError)
    expect((notify as FlussError).errorName).toBe('AUTHORIZATION_EXCEPTION')
    const produce = await alice
      .request('PRODUCE_LOG', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 5000,
        bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(3, 1)) }],
      })
      .catch(e => e as FlussError)
    expect((produce as FlussError).message).toMatch(
      /User:alice have no authorization to operate WRITE on resource TABLE 'db1.events'/,
    )
  })
})
