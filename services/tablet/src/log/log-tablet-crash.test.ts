import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire, isBuiltin } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MemoryLogRecords } from '@sluice/core/record'
import { build, type Plugin } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testBatch } from '../testing/log.js'
import { LogTablet } from './log-tablet.js'

/*
 * The child runs the real LogTablet code. It cannot import TypeScript, so beforeAll bundles this
 * directory's index.ts and the test batch builder (and the @sluice/core sources they import) with
 * esbuild into one ESM file in a temp directory; npm packages stay external, imported by absolute
 * path. No tsc build and no writes into the source tree.
 */

const here = dirname(fileURLToPath(import.meta.url))
const ACKS_BEFORE_KILL = 250

let work: string
let bundlePath: string

const externalPackages: Plugin = {
  name: 'external-packages-by-path',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, args => {
      if (isBuiltin(args.path) || args.path.startsWith('@sluice/')) return undefined
      const require = createRequire(args.importer || join(here, 'index.ts'))
      return { path: require.resolve(args.path), external: true }
    })
  },
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sluice-crash-'))
  bundlePath = join(work, 'log-bundle.mjs')
  await build({
    stdin: {
      contents: "export * from './index.ts'\nexport { testBatch } from '../testing/log.ts'\n",
      resolveDir: here,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundlePath,
    conditions: ['sluice-src'],
    plugins: [externalPackages],
    logLevel: 'silent',
  })
})

afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

interface Ack {
  readonly seq: number
  readonly firstOffset: number
  readonly lastOffset: number
}

/** Collects ack lines until `count`, then SIGKILLs the child; resolves once it is gone. */
function runUntilAcks(child: ChildProcess, count: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const acks: Ack[] = []
    let pending = ''
    let stderr = ''
    child.stderr?.on('data', d => (stderr += d))
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) {
        const [kind, seq, first, last] = line.split(' ')
        if (kind === 'ack')
          acks.push({ seq: Number(seq), firstOffset: Number(first), lastOffset: Number(last) })
      }
      if (acks.length >= count && !child.killed) child.kill('SIGKILL')
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acks)
      else reject(new Error(`child exited early (code ${code}): ${stderr}`))
    })
  })
}

describe('LogTablet after kill -9', () => {
  it('keeps every acknowledged append and continues at the right offsets', async () => {
    const logDir = join(work, 'bucket')
    const child = spawn(
      process.execPath,
      [join(here, 'test-fixtures', 'crash-appender.mjs'), bundlePath, logDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const acks = await runUntilAcks(child, ACKS_BEFORE_KILL)
    expect(acks.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL)

    const tablet = await LogTablet.open(logDir, {
      segmentBytes: 4096,
      indexIntervalBytes: 256,
      indexBytes: 1024,
      writerExpirationMs: 3_600_000,
      highWatermarkCheckpointIntervalMs: 0,
      maxQueuedOperations: 100,
    })
    try {
      expect(tablet.openedAfterCleanShutdown).toBe(false)
      expect(tablet.segmentCount).toBeGreaterThan(2)
      const last = acks[acks.length - 1]
      expect(tablet.logEndOffset).toBeGreaterThan(last.lastOffset)

      const { records } = await tablet.read({
        fetchOffset: 0,
        maxBytes: 1 << 24,
        isolation: 'LOG_END',
        minOneMessage: true,
      })
      const batches = new MemoryLogRecords(records).validateAll()
      let next = 0
      for (const [i, batch] of batches.entries()) {
        expect(batch.baseOffset).toBe(next)
        expect(batch.batchSequence).toBe(i)
        expect(batch.recordsSection().toString()).toBe(`payload-${i}`)
        next = batch.nextOffset
      }
      expect(next).toBe(tablet.logEndOffset)
      for (const ack of acks) {
        expect([batches[ack.seq].baseOffset, batches[ack.seq].lastOffset]).toEqual([
          ack.firstOffset,
          ack.lastOffset,
        ])
      }

      const lastSeq = batches.length - 1
      const retry = await tablet.appendAsLeader(
        testBatch({
          recordCount: 1 + (lastSeq % 3),
          writerId: 11,
          batchSequence: lastSeq,
          payload: `payload-${lastSeq}`,
        }),
      )
      expect(retry).toMatchObject({ duplicate: true, firstOffset: batches[lastSeq].baseOffset })
      const fresh = await tablet.appendAsLeader(testBatch({ writerId: 11, batchSequence: lastSeq + 1 }))
      expect(fresh.firstOffset).toBe(next)
    } finally {
      await tablet.close()
    }
  })
})
