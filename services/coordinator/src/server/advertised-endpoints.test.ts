import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { advertisedFromBound, ecsTaskPrivateAddress } from './advertised-endpoints.js'

describe('advertisedFromBound', () => {
  const bound = [
    { listenerName: 'CLIENT', host: '0.0.0.0', port: 9123 },
    { listenerName: 'INTERNAL', host: '10.0.1.7', port: 9124 },
  ]

  it('advertises a wildcard listener at the given host and keeps concrete ones', () => {
    expect(advertisedFromBound(bound, '10.0.1.7')).toEqual([
      { listenerName: 'CLIENT', host: '10.0.1.7', port: 9123 },
      { listenerName: 'INTERNAL', host: '10.0.1.7', port: 9124 },
    ])
  })

  it('refuses a wildcard listener with no host to advertise', () => {
    expect(() => advertisedFromBound(bound, undefined)).toThrow(/CLIENT binds the wildcard address 0.0.0.0/)
    expect(() => advertisedFromBound([{ listenerName: 'FLUSS', host: '::', port: 1 }], undefined)).toThrow(
      expect.objectContaining({ spec: expect.objectContaining({ name: 'INVALID_CONFIG_EXCEPTION' }) }),
    )
  })

  it('leaves concrete listeners alone without a host', () => {
    expect(advertisedFromBound([bound[1]], undefined)).toEqual([bound[1]])
  })
})

describe('ecsTaskPrivateAddress', () => {
  it('reads the first IPv4 address of the task metadata endpoint v4', async () => {
    const server = createServer((req, res) => {
      if (req.url !== '/v4/abc/task') {
        res.statusCode = 404
        res.end()
        return
      }
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          Containers: [
            { Name: 'init', Networks: [] },
            { Name: 'coordinator', Networks: [{ NetworkMode: 'awsvpc', IPv4Addresses: ['10.0.3.21'] }] },
          ],
        }),
      )
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      expect(await ecsTaskPrivateAddress(`http://127.0.0.1:${port}/v4/abc`)).toBe('10.0.3.21')
      await expect(ecsTaskPrivateAddress(`http://127.0.0.1:${port}/v4/other`)).rejects.toThrow(/HTTP 404/)
    } finally {
      server.close()
    }
  })

  it('refuses metadata without an address', async () => {
    await expect(
      ecsTaskPrivateAddress('http://x', async () => ({ Containers: [{ Networks: [] }] })),
    ).rejects.toThrow(/names no IPv4 address/)
  })
})
