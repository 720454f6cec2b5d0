import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Benchmark } from '../harness.js'
import { appendBatchesToFile, preheatPageCache, writeBackAll } from './log-append-support.js'

/**
 * What the log-append benchmark's target asks of a server on this machine: the same 128 KiB batches
 * (4 per request, 5 requests in flight) over loopback TCP into a page-cache file, by the least
 * server there can be. The subject is a native C server (bench/peers/loopback-append.c, compiled
 * here with gcc: blocking reads into one reused buffer, SSE4.2 CRC-32C of each batch, one write per
 * request) fed by a native client; the baseline is log-append's own, fs.writeSync of the same bytes
 * per batch. Extras: the native server without the CRC, and a plain Node.js server (net `data`
 * events, Buffer.concat, the tablet server's CRC-32C, fs.writeSync) fed by the same native client.
 */

const MiB = 1024 * 1024
const BATCH_BYTES = 128 * 1024
const RUN_BYTES = 256 * MiB
const IN_FLIGHT = 5
const PEER_SOURCE = fileURLToPath(new URL('../../peers/loopback-append.c', import.meta.url))
const NODE_SERVER = fileURLToPath(new URL('./loopback-append-server.js', import.meta.url))
const run = promisify(execFile)

interface Ctx {
  readonly dir: string
  readonly peer: string
  readonly batch: Buffer
  runs: number
}

interface PeerResult {
  readonly mbps: number
  readonly serverCpuPct: number
  readonly clientCpuPct: number
}

async function peer(ctx: Ctx, crc: boolean, port?: number): Promise<PeerResult> {
  const args = [ctx.dir, String(RUN_BYTES), String(IN_FLIGHT), crc ? '1' : '0']
  if (port !== undefined) args.push(String(port))
  const { stdout } = await run(ctx.peer, args)
  return JSON.parse(stdout) as PeerResult
}

/** The plain Node.js server, serving one connection of the native client. */
async function nodeServer(ctx: Ctx): Promise<PeerResult> {
  const child: ChildProcess = spawn(process.execPath, [NODE_SERVER, ctx.dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', code => reject(new Error(`the Node peer server exited (${code})`)))
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', line => {
        const m = line.match(/^port (\d+)$/)
        if (m) resolve(Number(m[1]))
      })
    })
    return await peer(ctx, true, port)
  } finally {
    child.kill()
  }
}

function prepare(ctx: Ctx): void {
  writeBackAll(ctx.dir)
  preheatPageCache(ctx.dir, RUN_BYTES + RUN_BYTES / 2)
}

/** MB/s of the faster of two prepared file appends (as log-append's baseline takes them). */
function fileAppend(ctx: Ctx): number {
  const count = RUN_BYTES / BATCH_BYTES
  let best = 0
  for (let i = 0; i < 2; i++) {
    prepare(ctx)
    const { bytes, seconds } = appendBatchesToFile(ctx.dir, `base-${ctx.runs++}.log`, count, () => ctx.batch)
    best = Math.max(best, bytes / 1e6 / seconds)
  }
  return best
}

export const logAppendCeiling: Benchmark<Ctx> = {
  name: 'log-append-ceiling',
  description:
    "The least server on this machine: a native C server (blocking reads into one reused buffer, SSE4.2 CRC-32C per 128 KiB batch, one write() per request of 4 batches to a page-cache file, 4-byte answer; bench/peers/loopback-append.c) fed over loopback TCP by a native client with 5 requests in flight, vs fs.writeSync of the same bytes per batch (log-append's baseline, the faster of two appends). Extras: the native server without the CRC, and a plain Node.js server (net data events, Buffer.concat, the tablet server's CRC-32C, fs.writeSync) fed by the same client. 256 MiB per run, each after a writeback and page-cache preheat.",
  unit: 'MB/s',
  better: 'higher',
  runs: 5,
  async setup() {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-ceiling-'))
    const binary = join(dir, 'loopback-append')
    try {
      await run('gcc', ['-O2', '-msse4.2', '-pthread', '-o', binary, PEER_SOURCE])
    } catch (e) {
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`log-append-ceiling needs gcc to build its native peer: ${String(e)}`)
    }
    const batch = Buffer.alloc(BATCH_BYTES)
    for (let i = 0; i < batch.length; i++) batch[i] = (i * 2654435761) >>> 13
    return { dir, peer: binary, batch, runs: 0 }
  },
  async teardown(ctx) {
    rmSync(ctx.dir, { recursive: true, force: true })
  },
  subject: {
    name: 'native server, TCP + CRC-32C + write',
    async run(ctx) {
      prepare(ctx)
      const withCrc = await peer(ctx, true)
      prepare(ctx)
      const withoutCrc = await peer(ctx, false)
      prepare(ctx)
      const plainNode = await nodeServer(ctx)
      const file = fileAppend(ctx)
      return {
        value: withCrc.mbps,
        extra: {
          'server CPU %': withCrc.serverCpuPct,
          'client CPU %': withCrc.clientCpuPct,
          'native server without CRC MB/s': withoutCrc.mbps,
          'plain Node.js server MB/s': plainNode.mbps,
          'native / file append (this run)': withCrc.mbps / file,
          'native without CRC / file append': withoutCrc.mbps / file,
          'plain Node.js / file append': plainNode.mbps / file,
        },
      }
    },
  },
  baseline: {
    name: 'fs.writeSync of the same bytes',
    async run(ctx) {
      return { value: fileAppend(ctx) }
    },
  },
}
