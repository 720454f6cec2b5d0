import {
  type Catalog,
  decodeTabletServerLease,
  registerTabletServer,
  releaseTabletServerLease,
  renewTabletServerLease,
  type TabletServerLeaseRecord,
  tableInfoOf,
} from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import type { Schema, TableBucket, TableInfo } from '@sluice/core/metadata'
import { allocateId, COUNTERS, type MetaStore, serverKey } from '@sluice/core/metastore'
import type { AdjustIsrResult, IsrProposal } from '../replica/replica-types.js'
import { adjustIsrInCatalog } from './adjust-isr.js'
import type {
  ControlPlane,
  CoordinatorAddress,
  ServerEndpoint,
  TabletServerLease,
  TabletServerRegistration,
} from './control-plane.js'

/** A held lease plus the stored record its renewal is conditioned on. */
interface MetaStoreLease extends TabletServerLease {
  readonly record: TabletServerLeaseRecord
}

/**
 * The ControlPlane of a tablet server over the metadata store, read and written through the shared
 * catalog (`@sluice/core/control-plane`): leases in the catalog's lease items (host/port = the internal
 * listener), tables and schemas from the catalog's items, writer ids from the `writer-id` counter
 * of the metadata store.
 */
export class MetaStoreControlPlane implements ControlPlane {
  constructor(
    private readonly catalog: Catalog,
    /** The uncached store, for the writer-id counter. */
    private readonly store: MetaStore,
    private readonly internalListenerName: string,
  ) {}

  async registerTabletServer(
    registration: TabletServerRegistration,
    leaseDurationMs: number,
  ): Promise<TabletServerLease> {
    const internal = this.#internalEndpoint(registration.endpoints)
    const record = await registerTabletServer(this.catalog, {
      serverId: registration.serverId,
      host: internal.host,
      port: internal.port,
      rack: registration.rack ?? null,
      listeners: registration.endpoints,
      leaseExpiresAtMs: this.catalog.nowMs() + leaseDurationMs,
      incarnation: registration.incarnationId,
    })
    return leaseOf(registration, record)
  }

  async renewTabletServerLease(
    lease: TabletServerLease,
    leaseDurationMs: number,
  ): Promise<TabletServerLease> {
    const held = (lease as MetaStoreLease).record
    const record = await renewTabletServerLease(this.catalog, held, this.catalog.nowMs() + leaseDurationMs)
    return leaseOf(lease.registration, record)
  }

  async releaseTabletServerLease(lease: TabletServerLease): Promise<void> {
    await releaseTabletServerLease(this.catalog, (lease as MetaStoreLease).record)
  }

  async getTabletServer(serverId: number): Promise<TabletServerRegistration | undefined> {
    const { pk, sk } = serverKey(serverId)
    const item = await this.catalog.store.get(pk, sk)
    if (item === undefined) return undefined
    const lease = decodeTabletServerLease(item)
    if (lease.leaseExpiresAtMs <= this.catalog.nowMs()) return undefined
    const endpoints =
      lease.listeners.length > 0
        ? lease.listeners
        : [{ listenerName: this.internalListenerName, host: lease.host, port: lease.port }]
    return {
      serverId,
      endpoints,
      incarnationId: lease.incarnation,
      ...(lease.rack === null ? {} : { rack: lease.rack }),
    }
  }

  async getTableInfo(tableId: number): Promise<TableInfo> {
    const table = await this.catalog.getTableById(tableId)
    if (table === undefined || table.state === 'DROPPED') {
      throw new FlussError('TABLE_NOT_EXIST', `The table with id ${tableId} does not exist.`)
    }
    return tableInfoOf(table)
  }

  async getSchema(tableId: number, schemaId: number): Promise<Schema> {
    const record = await this.catalog.getSchema(tableId, schemaId)
    if (record === undefined) {
      throw new FlussError(
        'SCHEMA_NOT_EXIST',
        `Schema ${schemaId} of the table with id ${tableId} does not exist.`,
      )
    }
    return record.schema
  }

  allocateWriterId(): Promise<number> {
    return allocateId(this.store, COUNTERS.writerId)
  }

  adjustIsr(proposal: IsrProposal): Promise<AdjustIsrResult> {
    return adjustIsrInCatalog(this.catalog, proposal)
  }

  async getBucketLeader(bucket: TableBucket): Promise<number | undefined> {
    const ref = { tableId: bucket.tableId, partitionId: bucket.partitionId ?? null, bucket: bucket.bucket }
    const leader = (await this.catalog.getBucket(ref))?.leaderAndIsr.leader
    return leader === undefined || leader === null || leader < 0 ? undefined : leader
  }

  async getActiveCoordinator(): Promise<CoordinatorAddress | undefined> {
    const lease = await this.catalog.activeCoordinator()
    if (lease === undefined) return undefined
    const internal = lease.listeners.find(e => e.listenerName === this.internalListenerName)
    return {
      host: internal?.host ?? lease.host,
      port: internal?.port ?? lease.port,
      coordinatorEpoch: lease.coordinatorEpoch,
    }
  }

  #internalEndpoint(endpoints: readonly ServerEndpoint[]): ServerEndpoint {
    const e = endpoints.find(x => x.listenerName === this.internalListenerName) ?? endpoints[0]
    if (e === undefined)
      throw new FlussError('INVALID_CONFIG_EXCEPTION', 'a tablet server needs at least one listener')
    return e
  }
}

function leaseOf(registration: TabletServerRegistration, record: TabletServerLeaseRecord): MetaStoreLease {
  return { registration, version: record.version, expiresAtMs: record.leaseExpiresAtMs, record }
}
