import { Connection, type Lookuper, type LookupResult } from '@sluice/client'
import { tablePath } from '@sluice/core/metadata'
import { percentileOf, runConcurrent } from '../support/concurrent.js'
import type { LoadClientReply, LoadClientRequest } from './pk-lookup-load.js'

/**
 * The load client of the pk-lookup benchmark, run as a child process of the harness (as
 * redis-benchmark is for the Redis side): it opens its own connection and Lookuper, then on each
 * `run` message looks up `requests` random keys from `clients` concurrent callers and answers with
 * the throughput and latency percentiles. Messages go over the IPC channel of `child_process.fork`.
 */

let connection: Connection | undefined
let lookuper: Lookuper | undefined

async function run(clients: number, requests: number, keys: number): Promise<LoadClientReply> {
  const target = lookuper
  if (target === undefined) throw new Error('run before init')
  let missing = 0
  const onResult = (result: LookupResult) => {
    if (result.singletonRow() === null) missing++
  }
  // Each caller awaits its lookup before the next; the operation is a plain promise chain.
  const { seconds, latenciesMs } = await runConcurrent(clients, requests, () =>
    target.lookup([BigInt(Math.floor(Math.random() * keys))]).then(onResult),
  )
  return {
    type: 'result',
    seconds,
    p50Ms: percentileOf(latenciesMs, 50),
    p99Ms: percentileOf(latenciesMs, 99),
    missing,
  }
}

async function handle(message: LoadClientRequest): Promise<LoadClientReply> {
  switch (message.type) {
    case 'init': {
      connection = await Connection.create(message.config)
      const table = await connection.getTable(tablePath(message.database, message.table))
      lookuper = table.newLookup().createLookuper()
      return { type: 'ready' }
    }
    case 'run':
      return run(message.clients, message.requests, message.keys)
    case 'close':
      await connection?.close()
      return { type: 'closed' }
  }
}

process.on('message', (message: LoadClientRequest) => {
  handle(message).then(
    reply => {
      process.send?.(reply)
      if (reply.type === 'closed') process.disconnect()
    },
    e => process.send?.({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  )
})
// The harness going away ends this process too.
process.on('disconnect', () => process.exit(0))
