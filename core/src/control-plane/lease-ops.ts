import { FlussError } from '../errors/index.js'
import { coordinatorKey, isMetaStoreConflict, serverKey, type WriteCondition } from '../metastore/index.js'
import type { Catalog } from './catalog.js'
import {
  type CoordinatorLease,
  type CoordinatorLeaseRecord,
  coordinatorLeaseValue,
  decodeTabletServerLease,
  type TabletServerLease,
  type TabletServerLeaseRecord,
  tabletServerLeaseValue,
} from './lease-items.js'

/**
 * Leases: single-item conditional writes whose expiry drives liveness. Safety never depends on the
 * clocks agreeing: every renewal is conditioned on the version and identity it holds, so a process
 * whose lease was taken over fails its next renewal and must stop acting.
 */

/**
 * Registers a tablet server: takes its lease item when it is absent, expired, or held by the same
 * endpoint (a restart of this server: two live processes cannot bind one host:port). Another live
 * holder of the id is a configuration error (duplicate `tablet-server.id`).
 */
export async function registerTabletServer(
  catalog: Catalog,
  lease: TabletServerLease,
): Promise<TabletServerLeaseRecord> {
  const { pk, sk } = serverKey(lease.serverId)
  const item = await catalog.store.get(pk, sk)
  const current = item === undefined ? undefined : decodeTabletServerLease(item)
  const takeover =
    current === undefined ||
    current.leaseExpiresAtMs <= catalog.nowMs() ||
    current.incarnation === lease.incarnation ||
    (current.host === lease.host && current.port === lease.port)
  if (!takeover) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `tablet-server.id ${lease.serverId} is held by a live server at ${current.host}:${current.port} ` +
        `until ${new Date(current.leaseExpiresAtMs).toISOString()}`,
    )
  }
  const version = await catalog.store.put(pk, sk, tabletServerLeaseValue(lease), {
    version: current === undefined ? 'absent' : current.version,
  })
  return { ...lease, version }
}

/** Extends a tablet server's lease; METASTORE_CONFLICT means it lost the lease and must stop. */
export async function renewTabletServerLease(
  catalog: Catalog,
  held: TabletServerLeaseRecord,
  leaseExpiresAtMs: number,
): Promise<TabletServerLeaseRecord> {
  const { version: _, ...lease } = held
  const next = { ...lease, leaseExpiresAtMs }
  const { pk, sk } = serverKey(held.serverId)
  const condition: WriteCondition = {
    version: held.version,
    attributes: [{ field: 'incarnation', op: '=', value: held.incarnation }],
  }
  const version = await catalog.store.put(pk, sk, tabletServerLeaseValue(next), condition)
  return { ...next, version }
}

/** Gives a tablet server's lease up on a clean shutdown, so the coordinator reacts at once. */
export async function releaseTabletServerLease(
  catalog: Catalog,
  held: TabletServerLeaseRecord,
): Promise<void> {
  const { pk, sk } = serverKey(held.serverId)
  try {
    await catalog.store.delete(pk, sk, { version: held.version })
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
  }
}

/**
 * Tries to become the active coordinator: takes the lease item when it is absent or expired,
 * bumping coordinatorEpoch, conditioned on the version read. Returns the held lease, or undefined
 * when another coordinator holds an unexpired lease or won the race.
 */
export async function acquireCoordinatorLease(
  catalog: Catalog,
  candidate: Omit<CoordinatorLease, 'coordinatorEpoch'>,
): Promise<CoordinatorLeaseRecord | undefined> {
  const current = await catalog.getCoordinatorLease()
  if (current !== undefined && current.leaseExpiresAtMs > catalog.nowMs()) return undefined
  const lease: CoordinatorLease = { ...candidate, coordinatorEpoch: (current?.coordinatorEpoch ?? 0) + 1 }
  const { pk, sk } = coordinatorKey()
  try {
    const version = await catalog.store.put(pk, sk, coordinatorLeaseValue(lease), {
      version: current === undefined ? 'absent' : current.version,
    })
    return { ...lease, version }
  } catch (e) {
    if (isMetaStoreConflict(e)) return undefined
    throw e
  }
}

function heldCondition(held: CoordinatorLeaseRecord): WriteCondition {
  return {
    version: held.version,
    attributes: [
      { field: 'coordinatorId', op: '=', value: held.coordinatorId },
      { field: 'coordinatorEpoch', op: '=', value: held.coordinatorEpoch },
    ],
  }
}

/** Extends the coordinator lease; METASTORE_CONFLICT means it was lost (step down at once). */
export async function renewCoordinatorLease(
  catalog: Catalog,
  held: CoordinatorLeaseRecord,
  leaseExpiresAtMs: number,
): Promise<CoordinatorLeaseRecord> {
  const { version: _, ...lease } = held
  const next = { ...lease, leaseExpiresAtMs }
  const { pk, sk } = coordinatorKey()
  const version = await catalog.store.put(pk, sk, coordinatorLeaseValue(next), heldCondition(held))
  return { ...next, version }
}

/**
 * Ends the lease now (expiry 0, epoch kept so the next coordinator still bumps it) so a standby
 * takes over without waiting; a lease already lost is left alone.
 */
export async function releaseCoordinatorLease(catalog: Catalog, held: CoordinatorLeaseRecord): Promise<void> {
  const { version: _, ...lease } = held
  const { pk, sk } = coordinatorKey()
  try {
    await catalog.store.put(
      pk,
      sk,
      coordinatorLeaseValue({ ...lease, leaseExpiresAtMs: 0 }),
      heldCondition(held),
    )
  } catch (e) {
    if (!isMetaStoreConflict(e)) throw e
  }
}
