import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration, DATA_DIR } from '@sluice/core/config'
import type { LeaderAndIsr } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import { type Schema, TableInfo, tablePath } from '@sluice/core/metadata'
import { testLogTable, testPkTable } from '@sluice/core/testing'
import { KvManager, SILENT_KV_SNAPSHOT_LOGGER } from '../kv/index.js'
import { LOG_TABLET_DEFAULTS, LogTablet } from '../log/index.js'
import { LeaderEpochCache } from '../replica/leader-epoch-cache.js'
import { Replica } from '../replica/replica.js'
import type { ReplicaHooks, ReplicaWarn } from '../replica/replica-hooks.js'
import type {
  AdjustIsrResult,
  IsrProposal,
  IsrWriter,
  NotifyLeaderAndIsrData,
} from '../replica/replica-types.js'
import { SchemaCache } from '../replica/schema-cache.js'
import { TestingClock, testBatch } from './log.js'

/** Test scaffolding for replica tests: one bucket of a log table on a temp dir, time by hand. */

export const TEST_BUCKET = { tableId: 7, bucket: 0 }
const TEST_PATH = tablePath('db', 'events')

/**
 * An IsrWriter that records proposals and answers them like the catalog would for a stored
 * bucket (`stored`), unless a test queued another answer or an error.
 */
export class TestingIsrWriter implements IsrWriter {
  readonly proposals: IsrProposal[] = []
  readonly #answers: (AdjustIsrResult | Error | Promise<AdjustIsrResult>)[] = []
  stored: LeaderAndIsr | undefined

  answerNext(answer: AdjustIsrResult | Error | Promise<AdjustIsrResult>): void {
    this.#answers.push(answer)
  }

  async adjustIsr(proposal: IsrProposal): Promise<AdjustIsrResult> {
    this.proposals.push(proposal)
    const answer = await this.#answers.shift()
    if (answer instanceof Error) throw answer
    if (answer !== undefined) return answer
    const stored = this.stored ?? {
      leader: proposal.leader,
      leaderEpoch: proposal.leaderEpoch,
      isr: [],
      replicas: [],
      bucketEpoch: proposal.bucketEpoch,
      coordinatorEpoch: 0,
    }
    this.stored = { ...stored, isr: [...proposal.isr], bucketEpoch: stored.bucketEpoch + 1 }
    return { kind: 'committed', leaderAndIsr: this.stored }
  }
}

/** A control plane that knows no schema beyond the ones in TableInfos. */
const NO_OTHER_SCHEMAS = {
  getSchema: async (tableId: number, schemaId: number): Promise<Schema> => {
    throw new FlussError(
      'SCHEMA_NOT_EXIST',
      `Schema ${schemaId} of the table with id ${tableId} does not exist.`,
    )
  },
}

export interface TestReplica {
  readonly replica: Replica
  readonly clock: TestingClock
  readonly writer: TestingIsrWriter
  readonly changes: number[]
  /** The KvManager of a primary-key replica (`primaryKey: true`); undefined otherwise. */
  readonly kvManager: KvManager | undefined
  /** The replica's data directory (its log under `log`, its KV state beside it). */
  readonly dir: string
  close(): Promise<void>
}

export interface TestReplicaOptions {
  readonly localServerId?: number
  readonly minInSyncReplicas?: number
  readonly maxLagMs?: number
  readonly hooks?: ReplicaHooks
  readonly dir?: string
  /** A bucket of a primary-key table (`testPkTable`: id INT key, v STRING) with a KvManager. */
  readonly primaryKey?: boolean
  readonly warn?: ReplicaWarn
}

/** A replica of TEST_BUCKET (not yet leader or follower) with a real LogTablet. */
export async function createTestReplica(options: TestReplicaOptions = {}): Promise<TestReplica> {
  const owned = options.dir === undefined
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'sluice-replica-')))
  const clock = new TestingClock()
  const logTablet = await LogTablet.open(join(dir, 'log'), {
    ...LOG_TABLET_DEFAULTS,
    highWatermarkCheckpointIntervalMs: 0,
    clock,
  })
  const epochCache = await LeaderEpochCache.load(logTablet.dir)
  const writer = new TestingIsrWriter()
  const descriptor = options.primaryKey === true ? testPkTable(1, 3) : testLogTable(1, 3)
  const tableInfo = TableInfo.of(TEST_PATH, TEST_BUCKET.tableId, 1, descriptor, 0, 0)
  const kvManager =
    options.primaryKey === true
      ? new KvManager({
          config: new Configuration({ [DATA_DIR.key]: join(dir, 'data') }),
          logger: SILENT_KV_SNAPSHOT_LOGGER,
        })
      : undefined
  const changes: number[] = []
  const replica = new Replica({
    localServerId: options.localServerId ?? 1,
    tableBucket: TEST_BUCKET,
    physicalTablePath: { tablePath: TEST_PATH },
    tableInfo,
    schemas: new SchemaCache(NO_OTHER_SCHEMAS).forTable(tableInfo),
    logTablet,
    epochCache,
    minInSyncReplicas: options.minInSyncReplicas ?? 1,
    maxLagMs: options.maxLagMs ?? 10_000,
    isrWriter: writer,
    isrRetryBackoffMs: 5,
    clock,
    ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    ...(kvManager === undefined ? {} : { kvManager }),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
    onChanged: () => changes.push(logTablet.highWatermark),
  })
  return {
    replica,
    clock,
    writer,
    changes,
    kvManager,
    dir,
    async close() {
      if (kvManager !== undefined) {
        replica.resign()
        await replica.whenHooksSettled()
        await kvManager.close()
      }
      await logTablet.close().catch(() => undefined)
      if (owned) await rm(dir, { recursive: true, force: true })
    },
  }
}

/** A NOTIFY_LEADER_AND_ISR entry for TEST_BUCKET. */
export function leaderAndIsr(
  leader: number,
  leaderEpoch: number,
  isr: readonly number[],
  replicas: readonly number[] = [1, 2, 3],
  bucketEpoch = leaderEpoch,
): NotifyLeaderAndIsrData {
  return {
    physicalTablePath: { tablePath: TEST_PATH },
    tableBucket: TEST_BUCKET,
    leader,
    leaderEpoch,
    replicas,
    isr,
    bucketEpoch,
    coordinatorEpoch: 0,
  }
}

/** `count` one-record batches appended as leader. */
export async function appendBatches(replica: Replica, count: number, acks = 1): Promise<void> {
  for (let i = 0; i < count; i++) await replica.appendRecordsToLeader(testBatch(), acks)
}

/** A follower fetch at `offset` (what the leader learns the follower holds). */
export function followerFetch(replica: Replica, followerId: number, offset: number) {
  return replica.readRecords({
    fetchOffset: offset,
    maxBytes: 1 << 20,
    minOneMessage: true,
    replicaId: followerId,
  })
}

/** Lets the ISR write answers (promise callbacks) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise(resolve => setImmediate(resolve))
}
