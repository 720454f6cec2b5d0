import { join } from 'node:path'
import { type FileIO, writeFileAtomic } from './file-io.js'
import { HIGH_WATERMARK_CHECKPOINT_FILE } from './log-paths.js'

const CHECKPOINT_VERSION = 1

/**
 * The bucket's high watermark on disk: `high-watermark.checkpoint`, JSON `{version: 1,
 * highWatermark}`, replaced atomically (temp file, fsync, rename, directory fsync).
 */
export class HighWatermarkCheckpoint {
  readonly path: string
  #written = -1
  #timer: NodeJS.Timeout | null = null

  constructor(
    private readonly io: FileIO,
    dir: string,
  ) {
    this.path = join(dir, HIGH_WATERMARK_CHECKPOINT_FILE)
  }

  async write(highWatermark: number): Promise<void> {
    const json = JSON.stringify({ version: CHECKPOINT_VERSION, highWatermark })
    await writeFileAtomic(this.io, this.path, Buffer.from(json))
    this.#written = highWatermark
  }

  /** Writes unless this value is already the one on disk. */
  async writeIfChanged(highWatermark: number): Promise<void> {
    if (highWatermark !== this.#written) await this.write(highWatermark)
  }

  /** Calls `tick` every `intervalMs` (0 = never) without keeping the process alive. */
  startTimer(intervalMs: number, tick: () => void): void {
    this.stopTimer()
    if (intervalMs <= 0) return
    this.#timer = setInterval(tick, intervalMs)
    this.#timer.unref()
  }

  stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** The checkpointed value, or null when the file is missing or unreadable. */
  async read(): Promise<number | null> {
    const bytes = await this.io.readFileOrNull(this.path)
    if (!bytes) return null
    try {
      const json = JSON.parse(bytes.toString('utf8')) as { version?: unknown; highWatermark?: unknown }
      const hw = json.highWatermark
      return json.version === CHECKPOINT_VERSION && Number.isSafeInteger(hw) && (hw as number) >= 0
        ? (hw as number)
        : null
    } catch {
      return null
    }
  }
}
