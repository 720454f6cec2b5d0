import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { type FileIO, nodeFileIO, writeFileAtomic } from '../log/index.js'

/** The file in a bucket's log directory that holds its leader epoch cache. */
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint'
const CHECKPOINT_VERSION = 0

/** Answer of `endOffsetFor` for an epoch this cache does not hold. */
export const UNDEFINED_EPOCH_OFFSET = -1

/** Leader epoch `epoch` wrote the records from `startOffset` up to the next entry's start. */
export interface EpochEntry {
  readonly epoch: number
  readonly startOffset: number
}

/**
 * Which leader epoch wrote which offsets of a bucket's log (Kafka's `LeaderEpochFileCache`): a list
 * of (epoch, start offset) with both strictly increasing. Log batches of magic V0 carry no epoch,
 * so the entries are recorded by the replica: a new leader adds (its epoch, its log end offset);
 * a follower copies the leader's entries for the offsets it is about to fetch. Two replicas that
 * hold an entry for the same epoch hold the same records from its start up to where one of them
 * ends, which is what lets a follower find the offset where its log diverges from the leader's.
 *
 * On disk: `leader-epoch-checkpoint`, text lines `version`, `count`, then `epoch startOffset`,
 * replaced atomically. Changes are made in memory and written by `flush`.
 */
export class LeaderEpochCache {
  #entries: EpochEntry[]
  #dirty = false
  #flushing: Promise<unknown> = Promise.resolve()

  private constructor(
    readonly path: string,
    private readonly io: FileIO,
    entries: EpochEntry[],
  ) {
    this.#entries = entries
  }

  /** Reads the checkpoint in `dir`; a missing file is an empty cache. */
  static async load(dir: string, io: FileIO = nodeFileIO): Promise<LeaderEpochCache> {
    const path = join(dir, LEADER_EPOCH_CHECKPOINT_FILE)
    const bytes = await io.readFileOrNull(path)
    return new LeaderEpochCache(path, io, bytes === null ? [] : parseCheckpoint(bytes.toString('utf8'), path))
  }

  get entries(): readonly EpochEntry[] {
    return this.#entries
  }

  /** The newest epoch held, -1 when empty. */
  get latestEpoch(): number {
    return this.#entries.at(-1)?.epoch ?? -1
  }

  get isEmpty(): boolean {
    return this.#entries.length === 0
  }

  /** The entry of exactly `epoch`, if held. */
  entry(epoch: number): EpochEntry | undefined {
    return this.#entries.find(e => e.epoch === epoch)
  }

  /**
   * Records that `epoch` starts at `startOffset`. Entries that contradict it (a newer or equal
   * epoch, or a start at or after `startOffset`) are dropped first, so the list stays increasing
   * in both fields. True when something changed.
   */
  assign(epoch: number, startOffset: number): boolean {
    if (!Number.isSafeInteger(epoch) || epoch < 0 || !Number.isSafeInteger(startOffset) || startOffset < 0) {
      throw new FlussError('INVALID_REQUEST', `invalid leader epoch entry (${epoch}, ${startOffset})`)
    }
    // The newest epoch keeps where it began: a repeated notice of it changes nothing.
    if (this.#entries.at(-1)?.epoch === epoch) return false
    const kept = this.#entries.filter(e => e.epoch < epoch && e.startOffset < startOffset)
    this.#entries = [...kept, { epoch, startOffset }]
    this.#dirty = true
    return true
  }

  /**
   * Where `epoch` ends in a log ending at `logEndOffset`: the next entry's start, or the log end
   * for the newest epoch. UNDEFINED_EPOCH_OFFSET when the epoch is not held.
   */
  endOffsetFor(epoch: number, logEndOffset: number): number {
    const i = this.#entries.findIndex(e => e.epoch === epoch)
    if (i < 0) return UNDEFINED_EPOCH_OFFSET
    return i + 1 < this.#entries.length ? this.#entries[i + 1].startOffset : logEndOffset
  }

  /** The smallest held epoch greater than `epoch`, -1 when none. */
  nextEpochAfter(epoch: number): number {
    return this.#entries.find(e => e.epoch > epoch)?.epoch ?? -1
  }

  /** The entries whose start offset is before `offset`, newest first. */
  entriesBefore(offset: number): EpochEntry[] {
    return this.#entries.filter(e => e.startOffset < offset).reverse()
  }

  /** After a log truncation to `endOffset`: forgets epochs that start at or after it. */
  truncateFromEnd(endOffset: number): void {
    const kept = this.#entries.filter(e => e.startOffset < endOffset)
    if (kept.length !== this.#entries.length) {
      this.#entries = kept
      this.#dirty = true
    }
  }

  /**
   * After the log start moved to `startOffset` (retention): forgets epochs that end before it and
   * moves the start of the one holding it up to it.
   */
  truncateFromStart(startOffset: number): void {
    let first = 0
    while (first + 1 < this.#entries.length && this.#entries[first + 1].startOffset <= startOffset) first++
    const kept = this.#entries.slice(first)
    if (kept.length > 0 && kept[0].startOffset < startOffset) kept[0] = { ...kept[0], startOffset }
    if (kept.length !== this.#entries.length || kept[0] !== this.#entries[0]) {
      this.#entries = kept
      this.#dirty = true
    }
  }

  clear(): void {
    if (this.#entries.length === 0) return
    this.#entries = []
    this.#dirty = true
  }

  /**
   * Writes the cache (temp file, fsync, rename) when it changed since the last flush. Flushes run
   * one at a time (they share the temp file); each writes the entries as they are when it starts.
   */
  flush(): Promise<void> {
    const run = this.#flushing.then(() => this.#write())
    this.#flushing = run.catch(() => undefined)
    return run
  }

  async #write(): Promise<void> {
    if (!this.#dirty) return
    const entries = this.#entries
    this.#dirty = false
    try {
      await writeFileAtomic(this.io, this.path, Buffer.from(formatCheckpoint(entries)))
    } catch (e) {
      this.#dirty = true
      throw e
    }
  }
}

function formatCheckpoint(entries: readonly EpochEntry[]): string {
  const lines = [String(CHECKPOINT_VERSION), String(entries.length)]
  for (const e of entries) lines.push(`${e.epoch} ${e.startOffset}`)
  return `${lines.join('\n')}\n`
}

function parseCheckpoint(text: string, path: string): EpochEntry[] {
  const corrupt = (why: string) =>
    new FlussError('LOG_STORAGE_EXCEPTION', `corrupt leader epoch checkpoint ${path}: ${why}`)
  const lines = text.split('\n').filter(l => l.length > 0)
  if (lines[0] !== String(CHECKPOINT_VERSION))
    throw corrupt(`expected version ${CHECKPOINT_VERSION}, got ${lines[0]}`)
  const count = Number(lines[1])
  if (!Number.isSafeInteger(count) || count !== lines.length - 2) {
    throw corrupt(`expected ${lines[1]} entries, found ${lines.length - 2}`)
  }
  const entries: EpochEntry[] = []
  for (const line of lines.slice(2)) {
    const [epoch, startOffset] = line.split(' ').map(Number)
    const previous = entries.at(-1)
    const valid =
      Number.isSafeInteger(epoch) && Number.isSafeInteger(startOffset) && epoch >= 0 && startOffset >= 0
    if (
      !valid ||
      (previous !== undefined && (epoch <= previous.epoch || startOffset <= previous.startOffset))
    ) {
      throw corrupt(`bad or out-of-order entry '${line}'`)
    }
    entries.push({ epoch, startOffset })
  }
  return entries
}
