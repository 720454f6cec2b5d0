import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { crc32c } from '@sluice/core/record'

/**
 * The log-append-ceiling benchmark's Node.js peer: the native peer's server (bench/peers/
 * loopback-append.c) written as a plain Node server, the way our RPC layer reads: `data` events,
 * a frame assembled with Buffer.concat when it spans chunks, the CRC-32C of every 128 KiB batch
 * (the tablet server's native codec), fs.writeSync of the frame to a file in `dir`, a 4-byte answer.
 * `node loopback-append-server.js <dir>` prints `port <n>`, serves one connection, then exits.
 */

const BATCH_BYTES = 128 * 1024
const dir = process.argv[2] ?? '.'
const path = join(dir, 'loopback-append-node.log')
const file = openSync(path, 'w')
const answer = Buffer.alloc(4)

const server = createServer(socket => {
  let parts: Buffer[] = []
  let held = 0
  let frameEnd = -1
  socket.on('data', (chunk: Buffer) => {
    parts.push(chunk)
    held += chunk.length
    for (;;) {
      if (frameEnd < 0) {
        if (held < 4) return
        const head = parts.length === 1 ? parts[0] : Buffer.concat(parts, held)
        parts = [head]
        frameEnd = 4 + head.readUInt32BE(0)
      }
      if (held < frameEnd) return
      const all = parts.length === 1 ? parts[0] : Buffer.concat(parts, held)
      const frame = all.subarray(4, frameEnd)
      let checksums = 0
      for (let at = 0; at < frame.length; at += BATCH_BYTES)
        checksums ^= crc32c(frame.subarray(at, at + BATCH_BYTES))
      if (checksums === -1) throw new Error('unreachable')
      writeSync(file, frame)
      socket.write(answer)
      const rest = all.subarray(frameEnd)
      parts = rest.length > 0 ? [rest] : []
      held = rest.length
      frameEnd = -1
    }
  })
  socket.on('close', () => {
    closeSync(file)
    rmSync(path, { force: true })
    server.close()
  })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address !== null && typeof address === 'object') console.log(`port ${address.port}`)
})
