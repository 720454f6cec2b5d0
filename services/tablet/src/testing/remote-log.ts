import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BlobStore, MemoryBlobStore } from '@sluice/core/blobstore'
import type { FlussError } from '@sluice/core/errors'
import { physicalTablePath, type TableBucket, tableBucket, tablePath } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { MemoryLogRecords } from '@sluice/core/record'
import { LogTablet } from '../log/index.js'
import { RemoteLogManager, type RemoteLogManagerOptions } from '../remote/remote-log-manager.js'
import type { RemoteLogReplica, RemoteLogSource, RemoteLogTableOptions } from '../remote/remote-log-types.js'
import { FaultInjectingBlobStore, FaultInjectingMetaStore } from './faults.js'
import { TestingClock, testBatch } from './log.js'

/** A bucket, its real LogTablet in a temp dir, fault-injecting stores and a manager, for tests. */
export interface RemoteLogHarness {
  readonly dir: string
  readonly clock: TestingClock
  readonly tablet: LogTablet
  readonly blobStore: FaultInjectingBlobStore
  readonly metaStore: FaultInjectingMetaStore
  readonly bucket: TableBucket
  /** Mutable: tests change table options between runs. */
  readonly tableOptions: { -readonly [K in keyof RemoteLogTableOptions]: RemoteLogTableOptions[K] }
  readonly fenced: FlussError[]
  manager: RemoteLogManager
  /** A new manager on the same stores, as after a process restart (the old one is closed). */
  restart(overrides?: Partial<RemoteLogManagerOptions>): Promise<RemoteLogManager>
  replica(overrides?: Partial<RemoteLogReplica>): RemoteLogReplica
  close(): Promise<void>
}

export interface HarnessOptions {
  readonly blobStore?: BlobStore
  readonly remoteDataDir?: string
  readonly manager?: Partial<RemoteLogManagerOptions>
  readonly segmentBytes?: number
}

export async function openRemoteLogHarness(options: HarnessOptions = {}): Promise<RemoteLogHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-remote-'))
  const clock = new TestingClock(1_700_000_000_000)
  const tablet = await LogTablet.open(join(dir, 'log-0'), {
    segmentBytes: options.segmentBytes ?? 600,
    indexIntervalBytes: 100,
    indexBytes: 800,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
    clock,
    name: 'orders-0',
  })
  const blobStore = new FaultInjectingBlobStore(options.blobStore ?? new MemoryBlobStore())
  const metaStore = new FaultInjectingMetaStore(new MemoryMetaStore())
  const managerOptions = (overrides: Partial<RemoteLogManagerOptions> = {}): RemoteLogManagerOptions => ({
    blobStore,
    metaStore,
    remoteDataDir: options.remoteDataDir ?? 's3://sluice-test/data',
    taskIntervalMs: 3_600_000,
    maxUploadSegments: 100,
    clock,
    sleep: async () => {},
    random: () => 0.999,
    retry: { maxAttempts: 3, operationTimeoutMs: 5_000 },
    ...options.manager,
    ...overrides,
  })
  const harness: RemoteLogHarness = {
    dir,
    clock,
    tablet,
    blobStore,
    metaStore,
    bucket: tableBucket(7, 0),
    tableOptions: {
      logTtlMs: 0,
      localSegments: 2,
      localTtlMs: 0,
      datalakeEnabled: false,
      datalakeFreshnessMs: 180_000,
    },
    fenced: [],
    manager: new RemoteLogManager(managerOptions()),
    async restart(overrides) {
      await harness.manager.close()
      harness.manager = new RemoteLogManager(managerOptions(overrides))
      return harness.manager
    },
    replica(overrides = {}) {
      return {
        tableBucket: harness.bucket,
        physicalTablePath: physicalTablePath(tablePath('shop', 'orders')),
        log: tablet,
        leaderEpoch: 1,
        tableOptions: () => harness.tableOptions,
        onFenced: e => harness.fenced.push(e),
        ...overrides,
      }
    },
    async close() {
      await harness.manager.close()
      if (!tablet.isClosed) await tablet.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return harness
}

/** Appends `count` batches of 2 records (about 150 bytes each), `stepMs` apart; returns base offsets. */
export async function appendHarnessBatches(
  h: RemoteLogHarness,
  count: number,
  stepMs = 1000,
): Promise<number[]> {
  const offsets: number[] = []
  for (let i = 0; i < count; i++) {
    const info = await h.tablet.appendAsLeader(
      testBatch({ recordCount: 2, payload: `row-${h.tablet.logEndOffset}`.padEnd(100, '.') }),
    )
    offsets.push(info.firstOffset)
    h.clock.advance(stepMs)
  }
  return offsets
}

/** Base offsets of the batches in `records` (validated). */
export function harnessBatchOffsets(records: Buffer): number[] {
  return new MemoryLogRecords(records).validateAll().map(b => b.baseOffset)
}

/** A log source whose `deleteSegmentsBelow` fails while `failDeletes` is set (a crash before it). */
export function failingDeletes(log: RemoteLogSource): RemoteLogSource & { failDeletes: boolean } {
  const wrapper = {
    failDeletes: true,
    get name() {
      return log.name
    },
    get highWatermark() {
      return log.highWatermark
    },
    get logStartOffset() {
      return log.logStartOffset
    },
    get logEndOffset() {
      return log.logEndOffset
    },
    get isClosed() {
      return log.isClosed
    },
    sealedSegments: () => log.sealedSegments(),
    maybeRoll: (nowMs: number, ageMs: number) => log.maybeRoll(nowMs, ageMs),
    deleteSegmentsBelow: (offset: number) =>
      wrapper.failDeletes
        ? Promise.reject(new Error('crash before local delete'))
        : log.deleteSegmentsBelow(offset),
  }
  return wrapper
}
