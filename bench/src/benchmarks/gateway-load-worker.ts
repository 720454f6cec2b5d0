import { parentPort, workerData } from 'node:worker_threads'

/**
 * The HTTP client of the gateway benchmarks, run in a worker thread so that its cost (request
 * building, sending, reading answers) is not charged to the gateway: in production the callers are
 * other machines. `workerData` holds the prepared request bodies; each message
 * `{ url, count, inFlight, expectRows }` sends `count` POSTs round-robin over the bodies,
 * `inFlight` at a time, checks each answer (200, and `row_count === expectRows` when given) and
 * answers `{ seconds, latenciesMs }` or `{ error }`.
 */

interface LoadData {
  readonly bodies: readonly Uint8Array[]
  readonly contentType: string
}

interface RunMessage {
  readonly url: string
  readonly count: number
  readonly inFlight: number
  readonly expectRows?: number
}

const data = workerData as LoadData

async function run(m: RunMessage): Promise<{ seconds: number; latenciesMs: number[] }> {
  const latenciesMs: number[] = new Array(m.count)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < m.count; i = next++) {
      const body = data.bodies[i % data.bodies.length]
      const t0 = performance.now()
      const res = await fetch(m.url, { method: 'POST', body, headers: { 'content-type': data.contentType } })
      const text = await res.text()
      latenciesMs[i] = performance.now() - t0
      const ok =
        res.status === 200 && (m.expectRows === undefined || JSON.parse(text).row_count === m.expectRows)
      if (!ok) throw new Error(`request ${i} failed: ${res.status} ${text.slice(0, 300)}`)
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: Math.min(m.inFlight, m.count) }, worker))
  return { seconds: (performance.now() - t0) / 1000, latenciesMs }
}

parentPort?.on('message', (m: RunMessage) => {
  run(m).then(
    result => parentPort?.postMessage(result),
    e => parentPort?.postMessage({ error: String(e instanceof Error ? e.message : e) }),
  )
})
