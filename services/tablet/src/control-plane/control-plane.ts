import type { Schema, TableBucket, TableInfo } from '@sluice/core/metadata'
import type { AdjustIsrResult, IsrProposal } from '../replica/replica-types.js'

/** One address a tablet server listens on (a `bind.listeners` / `advertised.listeners` entry). */
export interface ServerEndpoint {
  readonly listenerName: string
  readonly host: string
  readonly port: number
}

/** What a tablet server publishes about itself in its membership lease. */
export interface TabletServerRegistration {
  readonly serverId: number
  readonly endpoints: readonly ServerEndpoint[]
  readonly rack?: string
  /** Fresh per process start: tells a restarted server from the one before it. */
  readonly incarnationId: string
}

/** A held membership lease; `version` is what the next renewal is conditioned on. */
export interface TabletServerLease {
  readonly registration: TabletServerRegistration
  readonly version: number
  readonly expiresAtMs: number
}

/** Where the active coordinator listens (from its lease). */
export interface CoordinatorAddress {
  readonly host: string
  readonly port: number
  readonly coordinatorEpoch: number
}

/**
 * The tablet server's view of the control plane: what it reads from and writes to the metadata
 * store the coordinator also works on. None of it is called on the produce or fetch paths: table
 * info is loaded when a replica is created, schemas when a batch of an unseen schema id is
 * projected, writer ids on INIT_WRITER, the lease by the heartbeat, ISR changes when a leader's
 * ISR shrinks or grows, and the coordinator's address at controlled shutdown.
 */
export interface ControlPlane {
  /**
   * Takes the membership lease of `registration.serverId` for `leaseDurationMs`. Refused with a
   * retriable error while a live lease of another incarnation holds the id.
   */
  registerTabletServer(
    registration: TabletServerRegistration,
    leaseDurationMs: number,
  ): Promise<TabletServerLease>
  /**
   * Extends a held lease. Fails with METASTORE_CONFLICT when the stored lease is no longer the one
   * given (it was taken over, or released and re-taken): the server must stop serving writes.
   */
  renewTabletServerLease(lease: TabletServerLease, leaseDurationMs: number): Promise<TabletServerLease>
  /** Gives the lease up (graceful stop); a no-op when it is no longer held. */
  releaseTabletServerLease(lease: TabletServerLease): Promise<void>
  /** The registration of a live tablet server, or undefined. */
  getTabletServer(serverId: number): Promise<TabletServerRegistration | undefined>
  /** The leader of a bucket as the control plane last elected it, or undefined (no leader, no bucket). */
  getBucketLeader(bucket: TableBucket): Promise<number | undefined>
  /** The table with this id; TABLE_NOT_EXIST when there is none. */
  getTableInfo(tableId: number): Promise<TableInfo>
  /** One schema version of a table; SCHEMA_NOT_EXIST when unknown. */
  getSchema(tableId: number, schemaId: number): Promise<Schema>
  /** A cluster-unique idempotent writer id (Fluss's `initWriterId`). */
  allocateWriterId(): Promise<number>
  /**
   * A bucket leader's ISR change, written conditioned on the stored leader, leader epoch and
   * version (re-read and retried when only the version moved). UNKNOWN_TABLE_OR_BUCKET_EXCEPTION
   * when the bucket is gone.
   */
  adjustIsr(proposal: IsrProposal): Promise<AdjustIsrResult>
  /** The active coordinator, or undefined while none holds a live lease. */
  getActiveCoordinator(): Promise<CoordinatorAddress | undefined>
}
