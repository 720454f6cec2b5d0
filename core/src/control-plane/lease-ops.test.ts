import { beforeEach, describe, expect, it } from 'vitest'
import type { FlussError } from '../errors/index.js'
import { MemoryMetaStore } from '../metastore/index.js'
import { Catalog } from './catalog.js'
import { parseListeners } from './endpoints.js'
import {
  acquireCoordinatorLease,
  registerTabletServer,
  releaseCoordinatorLease,
  releaseTabletServerLease,
  renewCoordinatorLease,
  renewTabletServerLease,
} from './lease-ops.js'

let now: number
let catalog: Catalog
const candidate = (coordinatorId: string, leaseExpiresAtMs: number) => ({
  coordinatorId,
  host: '127.0.0.1',
  port: 9123,
  listeners: parseListeners('FLUSS://127.0.0.1:9123'),
  leaseExpiresAtMs,
})
const server = (serverId: number, port: number, incarnation: string) => ({
  serverId,
  host: '127.0.0.1',
  port,
  rack: null,
  listeners: parseListeners(`FLUSS://127.0.0.1:${port}`),
  leaseExpiresAtMs: now + 30_000,
  incarnation,
})

async function rejects(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected a rejection')
    },
    e => e as FlussError,
  )
}

beforeEach(() => {
  now = 1_000
  catalog = new Catalog(new MemoryMetaStore(), { nowMs: () => now })
})

describe('coordinator lease', () => {
  it('is taken when absent or expired, each time with a higher epoch', async () => {
    const a = await acquireCoordinatorLease(catalog, candidate('a', now + 10_000))
    expect(a?.coordinatorEpoch).toBe(1)
    expect(await acquireCoordinatorLease(catalog, candidate('b', now + 10_000))).toBeUndefined()
    expect((await catalog.activeCoordinator())?.coordinatorId).toBe('a')
    now += 10_000
    expect(await catalog.activeCoordinator()).toBeUndefined()
    const b = await acquireCoordinatorLease(catalog, candidate('b', now + 10_000))
    expect(b?.coordinatorEpoch).toBe(2)
    // The deposed holder's renewal fails: it must stop acting.
    expect(
      (await rejects(renewCoordinatorLease(catalog, a as NonNullable<typeof a>, now + 10_000))).errorName,
    ).toBe('METASTORE_CONFLICT')
  })

  it('is renewed by its holder and released with the epoch kept', async () => {
    const a = await acquireCoordinatorLease(catalog, candidate('a', now + 10_000))
    const renewed = await renewCoordinatorLease(catalog, a as NonNullable<typeof a>, now + 20_000)
    expect((await catalog.getCoordinatorLease())?.leaseExpiresAtMs).toBe(now + 20_000)
    await releaseCoordinatorLease(catalog, renewed)
    expect(await catalog.activeCoordinator()).toBeUndefined()
    expect((await acquireCoordinatorLease(catalog, candidate('b', now + 10_000)))?.coordinatorEpoch).toBe(2)
    await releaseCoordinatorLease(catalog, renewed) // lost already: left alone
    expect((await catalog.getCoordinatorLease())?.coordinatorId).toBe('b')
  })
})

describe('tablet server lease', () => {
  it('registers, renews and releases; live servers are those with unexpired leases', async () => {
    const held = await registerTabletServer(catalog, server(1, 9001, 'x'))
    await registerTabletServer(catalog, server(2, 9002, 'y'))
    expect((await catalog.liveTabletServers()).map(s => s.serverId)).toEqual([1, 2])
    const renewed = await renewTabletServerLease(catalog, held, now + 60_000)
    now += 40_000
    expect((await catalog.liveTabletServers()).map(s => s.serverId)).toEqual([1])
    await releaseTabletServerLease(catalog, renewed)
    expect(await catalog.listTabletServerLeases()).toHaveLength(1)
  })

  it('refuses a second live process with the same id, but lets a restart on the same endpoint in', async () => {
    const first = await registerTabletServer(catalog, server(1, 9001, 'x'))
    const dup = await rejects(registerTabletServer(catalog, server(1, 9005, 'z')))
    expect(dup.errorName).toBe('INVALID_CONFIG_EXCEPTION')
    const restarted = await registerTabletServer(catalog, server(1, 9001, 'w'))
    expect(restarted.incarnation).toBe('w')
    expect((await rejects(renewTabletServerLease(catalog, first, now + 1))).errorName).toBe(
      'METASTORE_CONFLICT',
    )
  })
})
