import { FlussError } from '@sluice/core/errors'
import { partitionName, type ResolvedPartitionSpec, type TableInfo } from '@sluice/core/metadata'
import type { Clock, Timer, TimerHandle } from '@sluice/core/util'
import { AutoPartitionManager } from '../auto-partition/auto-partition-manager.js'
import type {
  AutoPartitionLogger,
  AutoPartitionManagerOptions,
  AutoPartitionTableSource,
  PartitionOps,
} from '../auto-partition/partition-ops.js'

/** A clock that moves only when told to. */
export class TestingClock implements Clock {
  constructor(private ms: number) {}
  nowMs(): number {
    return this.ms
  }
  advanceMs(deltaMs: number): void {
    this.ms += deltaMs
  }
  setMs(ms: number): void {
    this.ms = ms
  }
}

/** A timer whose callbacks run only when `fire()` is called. */
export class TestingTimer implements Timer {
  #next = 1
  readonly pending = new Map<number, { callback: () => void | Promise<void>; delayMs: number }>()
  schedule(delayMs: number, callback: () => void | Promise<void>): TimerHandle {
    const id = this.#next++
    this.pending.set(id, { callback, delayMs })
    return { cancel: () => this.pending.delete(id) }
  }
  /** Runs the callbacks pending now; returns their delays. */
  fire(): number[] {
    const due = [...this.pending.values()]
    this.pending.clear()
    for (const t of due) void t.callback()
    return due.map(t => t.delayMs)
  }
}

/**
 * Partitions per table in memory, with `max.partition.num` and `max.bucket.num` checks and
 * injectable failures, standing in for the coordinator's catalog.
 */
export class MemoryPartitionOps implements PartitionOps, AutoPartitionTableSource {
  readonly tables = new Map<number, TableInfo>()
  readonly partitions = new Map<number, Set<string>>()
  readonly calls: string[] = []
  maxPartitionNum = 1000
  maxBucketNum = 128_000
  /** Throws this error for the named operation (`create:<tableId>:<name>`, `list:<tableId>`, ...). */
  readonly failures = new Map<string, FlussError>()

  addTable(table: TableInfo, partitions: readonly string[] = []): void {
    this.tables.set(table.tableId, table)
    this.partitions.set(table.tableId, new Set(partitions))
  }

  names(tableId: number): string[] {
    return [...(this.partitions.get(tableId) ?? [])].sort()
  }

  async listAutoPartitionedTables(): Promise<readonly TableInfo[]> {
    this.#maybeFail('tables')
    return [...this.tables.values()].filter(t => t.isAutoPartitioned)
  }

  async listPartitions(tableId: number): Promise<readonly string[]> {
    this.#maybeFail(`list:${tableId}`)
    return [...(this.partitions.get(tableId) ?? [])]
  }

  async createPartition(
    table: TableInfo,
    spec: ResolvedPartitionSpec,
    ignoreIfExists: boolean,
  ): Promise<void> {
    const name = partitionName(spec)
    this.calls.push(`create:${table.tableId}:${name}`)
    this.#maybeFail(`create:${table.tableId}:${name}`)
    const set = this.partitions.get(table.tableId) ?? new Set<string>()
    if (set.has(name)) {
      if (ignoreIfExists) return
      throw new FlussError('PARTITION_ALREADY_EXISTS', `Partition '${name}' already exists.`)
    }
    if (set.size + 1 > this.maxPartitionNum) {
      throw new FlussError('PARTITION_MAX_NUM_EXCEPTION', `Only ${this.maxPartitionNum} partitions allowed.`)
    }
    if ((set.size + 1) * table.numBuckets > this.maxBucketNum) {
      throw new FlussError('BUCKET_MAX_NUM_EXCEPTION', `Only ${this.maxBucketNum} buckets allowed.`)
    }
    set.add(name)
    this.partitions.set(table.tableId, set)
  }

  async dropPartition(table: TableInfo, name: string): Promise<void> {
    this.calls.push(`drop:${table.tableId}:${name}`)
    this.#maybeFail(`drop:${table.tableId}:${name}`)
    if (!this.partitions.get(table.tableId)?.delete(name)) {
      throw new FlussError('PARTITION_NOT_EXISTS', `Partition '${name}' does not exist.`)
    }
  }

  #maybeFail(op: string): void {
    const error = this.failures.get(op)
    if (error !== undefined) throw error
  }
}

/** A logger that keeps what it is told. */
export class RecordingLogger implements AutoPartitionLogger {
  readonly lines: string[] = []
  info(message: string): void {
    this.lines.push(`INFO ${message}`)
  }
  warn(message: string): void {
    this.lines.push(`WARN ${message}`)
  }
  error(message: string): void {
    this.lines.push(`ERROR ${message}`)
  }
  at(level: 'INFO' | 'WARN' | 'ERROR'): string[] {
    return this.lines.filter(l => l.startsWith(`${level} `)).map(l => l.slice(level.length + 1))
  }
}

/** A manager over a MemoryPartitionOps with a TestingClock at `startMs` (interval 10 min). */
export function setupManager(startMs: number, options: Partial<AutoPartitionManagerOptions> = {}) {
  const clock = new TestingClock(startMs)
  const ops = new MemoryPartitionOps()
  const manager = new AutoPartitionManager({
    tables: ops,
    partitions: ops,
    checkIntervalMs: 600_000,
    clock,
    ...options,
  })
  return { clock, ops, manager }
}
