import cliProgress from 'cli-progress'
import type { Io } from '../commands/context.js'

/** What a long command reports as it goes. */
export interface Progress {
  update(rows: number, bytes: number): void
  stop(): void
}

const MB = 1024 * 1024

function rate(rows: number, startedMs: number): number {
  return rows / Math.max(0.001, (Date.now() - startedMs) / 1000)
}

/**
 * A progress bar (rows, MB, rate, ETA) on stderr when it is a terminal; otherwise a plain line
 * every `intervalMs` ("produced 50000 rows, 3.2 MB, 25000 rows/s"), so logs of piped runs stay
 * readable. `totalBytes`: the input's size when known (ETA and percentage).
 */
export function startProgress(
  io: Io,
  verb: string,
  totalBytes: number | undefined,
  intervalMs = 2000,
): Progress {
  const startedMs = Date.now()
  if (io.stderrIsTty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: `${verb} [{bar}] {percentage}% | {rows} rows | {mb} MB | {rate} rows/s | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(totalBytes ?? 0, 0, { rows: 0, mb: '0.0', rate: 0 })
    return {
      update(rows, bytes) {
        bar.update(bytes, { rows, mb: (bytes / MB).toFixed(1), rate: Math.round(rate(rows, startedMs)) })
      },
      stop: () => bar.stop(),
    }
  }
  let last = startedMs
  return {
    update(rows, bytes) {
      const now = Date.now()
      if (now - last < intervalMs) return
      last = now
      io.err(
        `${verb} ${rows} rows, ${(bytes / MB).toFixed(1)} MB, ${Math.round(rate(rows, startedMs))} rows/s\n`,
      )
    },
    stop() {},
  }
}
