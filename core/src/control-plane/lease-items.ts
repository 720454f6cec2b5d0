import { type ItemValue, parseServerId, type VersionedItem } from '../metastore/index.js'
import { type Endpoint, endpointOf, listenersToString, parseListeners } from './endpoints.js'
import { corruptItem, ITEM_FORMAT, ItemReader } from './item-reader.js'

/**
 *   CLUSTER / SERVER#<id>    tablet server lease: { format, serverId, host, port, rack, listeners,
 *                            leaseExpiresAtMs, incarnation }
 *   CLUSTER / COORDINATOR    coordinator lease: { format, coordinatorId, host, port, listeners,
 *                            coordinatorEpoch, leaseExpiresAtMs }
 *
 * `host`/`port` is the server's internal endpoint (`internal.listener.name`); `listeners` are all
 * advertised endpoints. `incarnation` is a random id per process start: a new one means the server
 * restarted and lost its in-memory replica state. The coordinator lease is never deleted, only
 * expired (leaseExpiresAtMs = 0), so coordinatorEpoch only ever grows.
 */
export interface TabletServerLease {
  readonly serverId: number
  readonly host: string
  readonly port: number
  readonly rack: string | null
  readonly listeners: readonly Endpoint[]
  readonly leaseExpiresAtMs: number
  readonly incarnation: string
}

export interface TabletServerLeaseRecord extends TabletServerLease {
  readonly version: number
}

export interface CoordinatorLease {
  readonly coordinatorId: string
  readonly host: string
  readonly port: number
  readonly listeners: readonly Endpoint[]
  readonly coordinatorEpoch: number
  readonly leaseExpiresAtMs: number
}

export interface CoordinatorLeaseRecord extends CoordinatorLease {
  readonly version: number
}

function listenersField(r: ItemReader): Endpoint[] {
  return r.parsed('listeners', text => (text === '' ? [] : parseListeners(text)))
}

export function tabletServerLeaseValue(l: TabletServerLease): ItemValue {
  return {
    format: ITEM_FORMAT,
    serverId: l.serverId,
    host: l.host,
    port: l.port,
    rack: l.rack,
    listeners: listenersToString(l.listeners),
    leaseExpiresAtMs: l.leaseExpiresAtMs,
    incarnation: l.incarnation,
  }
}

export function decodeTabletServerLease(item: VersionedItem): TabletServerLeaseRecord {
  const r = new ItemReader(item)
  const serverId = r.int('serverId')
  if (serverId !== parseServerId(item.sk)) throw corruptItem(item, `holds server id ${serverId}`)
  return {
    serverId,
    host: r.string('host'),
    port: r.int('port'),
    rack: r.stringOrNull('rack'),
    listeners: listenersField(r),
    leaseExpiresAtMs: r.int('leaseExpiresAtMs'),
    incarnation: r.string('incarnation'),
    version: item.version,
  }
}

export function coordinatorLeaseValue(l: CoordinatorLease): ItemValue {
  return {
    format: ITEM_FORMAT,
    coordinatorId: l.coordinatorId,
    host: l.host,
    port: l.port,
    listeners: listenersToString(l.listeners),
    coordinatorEpoch: l.coordinatorEpoch,
    leaseExpiresAtMs: l.leaseExpiresAtMs,
  }
}

export function decodeCoordinatorLease(item: VersionedItem): CoordinatorLeaseRecord {
  const r = new ItemReader(item)
  return {
    coordinatorId: r.string('coordinatorId'),
    host: r.string('host'),
    port: r.int('port'),
    listeners: listenersField(r),
    coordinatorEpoch: r.int('coordinatorEpoch'),
    leaseExpiresAtMs: r.int('leaseExpiresAtMs'),
    version: item.version,
  }
}

/** The endpoint a client on `listenerName` should use: that listener's, else the internal one. */
export function serverEndpointFor(
  lease: { host: string; port: number; listeners: readonly Endpoint[] },
  listenerName: string | undefined,
): { host: string; port: number } {
  const e = listenerName === undefined ? undefined : endpointOf(lease.listeners, listenerName)
  return e === undefined ? { host: lease.host, port: lease.port } : { host: e.host, port: e.port }
}
