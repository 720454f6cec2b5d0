import { batchBoundaryAt, LogRecordBatch, MAX_RECORD_BATCH_HEADER_SIZE } from '@sluice/core/record'
import { type LogFileHandle, readFully } from './file-io.js'

export interface ScannedBatch {
  /** File position of the batch. */
  readonly position: number
  readonly sizeInBytes: number
  /** View over the scanner's buffer: valid until the next call to `next()`. */
  readonly batch: LogRecordBatch
}

/** Why a scan ended: at `end`, or at a batch that is cut short or malformed. */
export interface ScanStop {
  readonly position: number
  readonly reason: 'end' | 'truncated' | 'corrupt'
  readonly message: string
}

/**
 * Walks the batches of a segment file between two positions, reading `chunkBytes` at a time. With
 * `withBodies` every batch is loaded whole (to check its CRC); otherwise only headers are read and
 * large batch bodies are skipped.
 */
export class FileBatchScanner {
  #buffer: Buffer = Buffer.alloc(0)
  #bufferStart = 0
  #position: number
  stop: ScanStop | null = null

  constructor(
    private readonly file: LogFileHandle,
    start: number,
    private readonly end: number,
    private readonly chunkBytes: number,
    private readonly withBodies: boolean,
  ) {
    this.#position = start
  }

  /** The position after the last batch returned. */
  get position(): number {
    return this.#position
  }

  async next(): Promise<ScannedBatch | null> {
    const position = this.#position
    if (position >= this.end) return this.#halt('end', 'end of scan range')
    const headerBytes = Math.min(MAX_RECORD_BATCH_HEADER_SIZE, this.end - position)
    if (!(await this.#ensure(position, headerBytes)))
      return this.#halt('truncated', 'file shorter than expected')
    const relative = position - this.#bufferStart
    const boundary = batchBoundaryAt(this.#buffer, relative, this.end - this.#bufferStart)
    if (!boundary.ok) return this.#halt(boundary.reason, boundary.message)
    const size = boundary.size
    const wanted = this.withBodies ? size : Math.min(size, MAX_RECORD_BATCH_HEADER_SIZE)
    if (!(await this.#ensure(position, wanted))) return this.#halt('truncated', 'file shorter than expected')
    const at = position - this.#bufferStart
    const batch = new LogRecordBatch(this.#buffer.subarray(at, at + wanted))
    this.#position = position + size
    return { position, sizeInBytes: size, batch }
  }

  #halt(reason: ScanStop['reason'], message: string): null {
    this.stop = { position: this.#position, reason, message }
    return null
  }

  async #ensure(position: number, length: number): Promise<boolean> {
    const bufferEnd = this.#bufferStart + this.#buffer.length
    if (position >= this.#bufferStart && position + length <= bufferEnd) return true
    const readLength = Math.min(Math.max(length, this.chunkBytes), this.end - position)
    this.#buffer = await readFully(this.file, readLength, position)
    this.#bufferStart = position
    return this.#buffer.length >= length
  }
}
