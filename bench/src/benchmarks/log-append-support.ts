import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Helpers of the log-append benchmark that keep its two cases comparable on a shared VM: page-cache
 * state before each run, the baseline's file appends, and CPU time of the server process.
 */

const MiB = 1024 * 1024

/**
 * Writes back every file under `dir` (untimed), so a run starts with none of the earlier runs' log
 * bytes dirty in the page cache: otherwise later runs of either case would pay for (or be throttled
 * by) the writeback of what earlier runs wrote.
 */
export function writeBackAll(dir: string): void {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    let fd: number | undefined
    try {
      fd = openSync(join(entry.parentPath, entry.name), 'r')
      fsyncSync(fd)
    } catch {
      // A file removed meanwhile (e.g. a checkpoint replaced) needs no writeback.
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }
}

/**
 * Writes `bytes` to a scratch file in `dir` and deletes it (untimed). This VM hands free memory back
 * to its host about 2 s after it was freed (virtio-balloon free page reporting); the first write
 * into such memory takes a host page fault per page, which makes page-cache appends ~10× slower
 * than appends into recently freed pages. Preheating right before a timed run gives either case
 * recently used pages, as on a host without a balloon.
 */
export function preheatPageCache(dir: string, bytes: number): void {
  const file = join(dir, 'preheat.tmp')
  const chunk = Buffer.alloc(MiB, 1)
  const fd = openSync(file, 'w')
  try {
    for (let done = 0; done < bytes; done += chunk.length) writeSync(fd, chunk)
  } finally {
    closeSync(fd)
    rmSync(file, { force: true })
  }
}

/**
 * Appends `count` batches (`batchAt(0..count-1)`) to a new file in `dir` and deletes it; returns the
 * bytes and seconds of the appends. `writeBytes` 0 writes each batch with its own writeSync;
 * otherwise batches are gathered with Buffer.concat and written `writeBytes` at a time.
 */
export function appendBatchesToFile(
  dir: string,
  name: string,
  count: number,
  batchAt: (i: number) => Buffer,
  writeBytes = 0,
): { bytes: number; seconds: number } {
  const file = join(dir, name)
  const fd = openSync(file, 'a')
  let bytes = 0
  const t0 = performance.now()
  try {
    let pending: Buffer[] = []
    let pendingBytes = 0
    for (let i = 0; i < count; i++) {
      const batch = batchAt(i)
      bytes += batch.length
      if (writeBytes === 0) {
        writeSync(fd, batch)
        continue
      }
      pending.push(batch)
      pendingBytes += batch.length
      if (pendingBytes >= writeBytes || i === count - 1) {
        writeSync(fd, Buffer.concat(pending, pendingBytes))
        pending = []
        pendingBytes = 0
      }
    }
  } finally {
    closeSync(fd)
  }
  const seconds = (performance.now() - t0) / 1000
  rmSync(file, { force: true })
  return { bytes, seconds }
}

/** User + system CPU seconds of a process and of its main (JavaScript) thread; Linux only. */
export interface ProcessCpu {
  readonly processS: number
  readonly mainThreadS: number
}

function cpuSecondsOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime, in clock ticks of USER_HZ (100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU time of `pid` so far, undefined where /proc is not available. */
export function processCpu(pid: number | undefined): ProcessCpu | undefined {
  if (pid === undefined) return undefined
  try {
    return {
      processS: cpuSecondsOf(`/proc/${pid}/stat`),
      mainThreadS: cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`),
    }
  } catch {
    return undefined
  }
}
