import { type FileIO, writeFileAtomic } from './file-io.js'
import { offsetFilePath, parseOffsetFileName, WRITER_SNAPSHOT_FILE_SUFFIX } from './log-paths.js'
import { type BatchMetadata, WriterStateEntry } from './writer-state-entry.js'

const SNAPSHOT_VERSION = 1

interface SnapshotJson {
  version: number
  offset: number
  writers: { writerId: number; lastTimestamp: number; batches: BatchMetadata[] }[]
}

export interface LoadedSnapshot {
  readonly offset: number
  readonly entries: readonly WriterStateEntry[]
}

function isInteger(value: unknown): value is number {
  return Number.isSafeInteger(value)
}

function parseSnapshot(bytes: Buffer, offset: number): WriterStateEntry[] | null {
  let json: SnapshotJson
  try {
    json = JSON.parse(bytes.toString('utf8')) as SnapshotJson
  } catch {
    return null
  }
  if (json?.version !== SNAPSHOT_VERSION || json.offset !== offset || !Array.isArray(json.writers))
    return null
  const entries: WriterStateEntry[] = []
  for (const w of json.writers) {
    if (!isInteger(w?.writerId) || !isInteger(w.lastTimestamp) || !Array.isArray(w.batches)) return null
    const ok = w.batches.every(
      b =>
        isInteger(b?.batchSequence) &&
        isInteger(b.lastOffset) &&
        isInteger(b.offsetDelta) &&
        isInteger(b.timestamp),
    )
    if (!ok) return null
    entries.push(new WriterStateEntry(w.writerId, w.lastTimestamp, w.batches))
  }
  return entries
}

/**
 * Writer-state snapshot files of one bucket: `<20-digit offset>.writer_snapshot`, JSON
 * `{version: 1, offset, writers: [{writerId, lastTimestamp, batches: [{batchSequence, lastOffset,
 * offsetDelta, timestamp}]}]}`, written atomically. An unreadable snapshot is deleted and the next
 * older one used.
 */
export class WriterSnapshots {
  #offsets: number[] | null = null

  constructor(
    private readonly io: FileIO,
    private readonly dir: string,
  ) {}

  async offsets(): Promise<readonly number[]> {
    if (!this.#offsets) {
      const names = await this.io.list(this.dir)
      this.#offsets = names
        .map(n => parseOffsetFileName(n, WRITER_SNAPSHOT_FILE_SUFFIX))
        .filter((o): o is number => o !== null)
        .sort((a, b) => a - b)
    }
    return this.#offsets
  }

  path(offset: number): string {
    return offsetFilePath(this.dir, offset, WRITER_SNAPSHOT_FILE_SUFFIX)
  }

  async write(offset: number, entries: readonly WriterStateEntry[]): Promise<void> {
    const offsets = await this.offsets()
    if (offsets.includes(offset)) return
    const json: SnapshotJson = {
      version: SNAPSHOT_VERSION,
      offset,
      writers: entries.map(e => ({
        writerId: e.writerId,
        lastTimestamp: e.lastTimestamp,
        batches: [...e.batches],
      })),
    }
    await writeFileAtomic(this.io, this.path(offset), Buffer.from(JSON.stringify(json)))
    this.#offsets = [...offsets, offset].sort((a, b) => a - b)
  }

  /** The newest readable snapshot at or below `maxOffset`; newer and unreadable ones are deleted. */
  async readLatest(maxOffset: number): Promise<LoadedSnapshot | null> {
    await this.deleteAbove(maxOffset)
    const offsets = [...(await this.offsets())]
    while (offsets.length > 0) {
      const offset = offsets[offsets.length - 1]
      const bytes = await this.io.readFileOrNull(this.path(offset))
      const entries = bytes ? parseSnapshot(bytes, offset) : null
      if (entries) return { offset, entries }
      await this.#delete(offset)
      offsets.pop()
    }
    return null
  }

  async deleteAbove(offset: number): Promise<void> {
    for (const o of await this.offsets()) if (o > offset) await this.#delete(o)
  }

  async deleteBelow(offset: number): Promise<void> {
    for (const o of await this.offsets()) if (o < offset) await this.#delete(o)
  }

  /** Keeps snapshots at segment base offsets and the newest one; deletes the rest. */
  async deleteStray(segmentBaseOffsets: readonly number[]): Promise<void> {
    const keep = new Set(segmentBaseOffsets)
    const offsets = await this.offsets()
    const newest = offsets[offsets.length - 1]
    for (const o of offsets) if (!keep.has(o) && o !== newest) await this.#delete(o)
  }

  async deleteAll(): Promise<void> {
    for (const o of await this.offsets()) await this.#delete(o)
  }

  async #delete(offset: number): Promise<void> {
    await this.io.remove(this.path(offset))
    this.#offsets = (this.#offsets ?? []).filter(o => o !== offset)
  }
}
