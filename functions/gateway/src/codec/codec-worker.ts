import { parentPort } from 'node:worker_threads'
import { initArrowCodecs } from '@sluice/core/arrow'
import { type AppendBodyRequest, encodeAppendBody } from './append-body-encoding.js'

/**
 * A worker thread of AppendBodyEncoder: takes `{ id, request }` messages (the body's bytes
 * transferred), answers `{ id, result }` with the encoded messages transferred back.
 */

interface WorkMessage {
  readonly id: number
  readonly request: AppendBodyRequest
}

const port = parentPort
if (port === null) throw new Error('codec-worker.js runs as a worker thread')
const ready = initArrowCodecs()

port.on('message', (m: WorkMessage) => {
  ready.then(
    () => {
      const result = encodeAppendBody(m.request)
      if (result.kind !== 'encoded') {
        port.postMessage({ id: m.id, result })
        return
      }
      const messages = result.messages.map(owningCopy)
      port.postMessage(
        { id: m.id, result: { ...result, messages } },
        messages.map(b => b.buffer as ArrayBuffer),
      )
    },
    () => port.postMessage({ id: m.id, result: { kind: 'declined' } }),
  )
})

/**
 * The message in a buffer of its own, to transfer: encoded messages own theirs (the writer
 * allocates each), a batch kept as it came is a view into the body and is copied.
 */
function owningCopy(message: Uint8Array): Uint8Array {
  const whole = message.byteOffset === 0 && message.byteLength === message.buffer.byteLength
  return whole ? message : message.slice()
}
