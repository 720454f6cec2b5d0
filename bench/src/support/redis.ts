import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './free-port.js'

/**
 * A private redis-server (Debian's package) on 127.0.0.1 and a free port, without persistence,
 * as the peer of the lookup benchmark, driven by redis-benchmark. Stopped by its pid.
 */

const run = promisify(execFile)
const REDIS_SERVER = '/usr/bin/redis-server'
const REDIS_BENCHMARK = '/usr/bin/redis-benchmark'
const REDIS_CLI = '/usr/bin/redis-cli'
const READY_TIMEOUT_MS = 10_000

export interface RedisPeer {
  readonly port: number
  readonly process: ChildProcess
  readonly dir: string
}

export interface RedisGetResult {
  readonly opsPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
}

export async function startRedis(): Promise<RedisPeer> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-redis-'))
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const output: string[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server not ready:\n${output.join('')}`)),
        READY_TIMEOUT_MS,
      )
      const onData = (b: Buffer) => {
        output.push(b.toString())
        if (output.join('').includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      }
      child.stdout?.on('data', onData)
      child.stderr?.on('data', onData)
      child.once('error', e => {
        clearTimeout(timer)
        reject(e)
      })
      child.once('exit', code => {
        clearTimeout(timer)
        reject(new Error(`redis-server exited with ${code}:\n${output.join('')}`))
      })
    })
  } catch (e) {
    await stopChild(child)
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  child.stdout?.resume()
  child.stderr?.resume()
  return { port, process: child, dir }
}

export async function stopRedis(r: RedisPeer): Promise<void> {
  await stopChild(r.process)
  rmSync(r.dir, { recursive: true, force: true })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  process.kill(child.pid, 'SIGTERM')
  const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

/** redis-benchmark's key for random index `i` (`key:__rand_int__` with 12 digits). */
export function redisBenchmarkKey(i: number): string {
  return `key:${String(i).padStart(12, '0')}`
}

/** SETs every key redis-benchmark's `-r keys` may ask for, with `valueBytes`-byte values, through `redis-cli --pipe`. */
export async function preloadRedis(r: RedisPeer, keys: number, valueBytes: number): Promise<void> {
  const value = 'x'.repeat(valueBytes)
  const child = spawn(REDIS_CLI, ['-p', String(r.port), '--pipe'], { stdio: ['pipe', 'pipe', 'pipe'] })
  const output: string[] = []
  child.stdout.on('data', b => output.push(b.toString()))
  child.stderr.on('data', b => output.push(b.toString()))
  const exited = new Promise<number | null>(resolve => child.once('exit', resolve))
  const chunk: string[] = []
  for (let i = 0; i < keys; i++) {
    const key = redisBenchmarkKey(i)
    chunk.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${valueBytes}\r\n${value}\r\n`)
    if (chunk.length === 1000 || i === keys - 1) {
      if (!child.stdin.write(chunk.join(''))) await new Promise(resolve => child.stdin.once('drain', resolve))
      chunk.length = 0
    }
  }
  child.stdin.end()
  const code = await exited
  if (code !== 0) throw new Error(`redis-cli --pipe failed (${code}): ${output.join('')}`)
  const { stdout } = await run(REDIS_CLI, ['-p', String(r.port), 'dbsize'])
  if (Number(stdout.trim()) !== keys) throw new Error(`redis holds ${stdout.trim()} keys, expected ${keys}`)
}

/** `redis-benchmark -t get` with `clients` clients over `keys` random keys; throughput and latencies. */
export async function redisGetBenchmark(
  r: RedisPeer,
  options: { clients: number; requests: number; keys: number; valueBytes: number },
): Promise<RedisGetResult> {
  const args = [
    '-p',
    String(r.port),
    '-t',
    'get',
    '-c',
    String(options.clients),
    '-n',
    String(options.requests),
  ]
  args.push('-d', String(options.valueBytes), '-r', String(options.keys), '--csv')
  const { stdout } = await run(REDIS_BENCHMARK, args, { maxBuffer: 1 << 20 })
  return parseRedisCsv(stdout)
}

/** Parses redis-benchmark's `--csv` output (Redis 7: rps, avg, min, p50, p95, p99, max in ms). */
export function parseRedisCsv(csv: string): RedisGetResult {
  const lines = csv
    .trim()
    .split('\n')
    .map(l => l.split(',').map(c => c.replace(/^"|"$/g, '')))
  const header = lines[0]
  const row = lines.find(l => l[0] === 'GET')
  if (header === undefined || row === undefined)
    throw new Error(`no GET line in redis-benchmark output: ${csv}`)
  const col = (name: string) => {
    const i = header.indexOf(name)
    const v = Number(row[i])
    if (i < 0 || !Number.isFinite(v)) throw new Error(`no ${name} in redis-benchmark output: ${csv}`)
    return v
  }
  return { opsPerSec: col('rps'), p50Ms: col('p50_latency_ms'), p99Ms: col('p99_latency_ms') }
}
