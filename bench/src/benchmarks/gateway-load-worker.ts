import { Agent, request } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * The HTTP client of the gateway benchmarks, run in a worker thread so that its cost (request
 * building, sending, reading answers) is not charged to the gateway: in production the callers are
 * other machines. Requests go through node:http with a keep-alive agent (one connection per request
 * in flight), which costs the client thread much less than `fetch`. `workerData` holds the prepared request bodies; each message
 * `{ url, count, inFlight, check }` sends `count` POSTs round-robin over the bodies, `inFlight` at
 * a time, checks each answer (200, and what `check` asks: a write's `row_count`, a lookup's number
 * of non-null `rows`) and answers `{ seconds, latenciesMs }` or `{ error }`.
 */

interface LoadData {
  readonly bodies: readonly Uint8Array[]
  readonly contentType: string
}

interface RunMessage {
  readonly url: string
  readonly count: number
  readonly inFlight: number
  readonly check: { readonly rowCount?: number; readonly foundRows?: number }
}

function answerOk(m: RunMessage, status: number, text: string): boolean {
  if (status !== 200) return false
  const { rowCount, foundRows } = m.check
  if (rowCount === undefined && foundRows === undefined) return true
  const body = JSON.parse(text) as { row_count?: number; rows?: unknown[] }
  if (rowCount !== undefined && body.row_count !== rowCount) return false
  return foundRows === undefined || body.rows?.filter(r => r !== null).length === foundRows
}

const data = workerData as LoadData
/** Connections are kept between requests; at most one per request in flight. */
const agents = new Map<number, Agent>()

function agentFor(inFlight: number): Agent {
  let agent = agents.get(inFlight)
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: inFlight })
    agents.set(inFlight, agent)
  }
  return agent
}

/** POSTs `body`; resolves with the status and the answer text. */
function post(url: URL, agent: Agent, body: Uint8Array): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': data.contentType, 'content-length': String(body.byteLength) }
    const req = request(url, { method: 'POST', agent, headers }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function run(m: RunMessage): Promise<{ seconds: number; latenciesMs: number[] }> {
  const latenciesMs: number[] = new Array(m.count)
  const url = new URL(m.url)
  const agent = agentFor(m.inFlight)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < m.count; i = next++) {
      const t0 = performance.now()
      const { status, text } = await post(url, agent, data.bodies[i % data.bodies.length])
      latenciesMs[i] = performance.now() - t0
      if (!answerOk(m, status, text)) throw new Error(`request ${i} failed: ${status} ${text.slice(0, 300)}`)
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
