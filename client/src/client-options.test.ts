import { Configuration } from '@sluice/core/config'
import { describe, expect, it } from 'vitest'
import { clientOptions, parseServerAddress, toConfiguration } from './client-options.js'

const options = (values: Record<string, string | number | boolean>) =>
  clientOptions(toConfiguration({ 'bootstrap.servers': '127.0.0.1:9123', ...values }))

describe('clientOptions', () => {
  it('reads Fluss defaults', () => {
    const o = options({})
    expect(o.bootstrapServers).toEqual([{ host: '127.0.0.1', port: 9123 }])
    expect(o.requestTimeoutMs).toBe(30_000)
    expect(o.writer).toMatchObject({
      acks: -1,
      idempotence: true,
      batchSizeBytes: 2 * 1024 * 1024,
      batchTimeoutMs: 100,
      bufferMemoryBytes: 64 * 1024 * 1024,
      maxInflightPerBucket: 5,
      noKeyAssigner: 'STICKY',
    })
    expect(o.scanner).toEqual({
      fetchMaxBytes: 16 * 1024 * 1024,
      fetchMaxBytesForBucket: 1024 * 1024,
      fetchMinBytes: 1,
      fetchWaitMaxMs: 500,
      maxPollRecords: 500,
      checkCrc: true,
      partitionDiscoveryIntervalMs: 60_000,
    })
  })

  it('maps acks and accepts a non-idempotent writer with any acks', () => {
    expect(
      options({ 'client.writer.enable-idempotence': false, 'client.writer.acks': '1' }).writer.acks,
    ).toBe(1)
    expect(
      options({ 'client.writer.enable-idempotence': false, 'client.writer.acks': '0' }).writer.acks,
    ).toBe(0)
    expect(options({ 'client.writer.acks': '-1' }).writer.acks).toBe(-1)
  })

  it('rejects settings that break idempotence', () => {
    expect(() => options({ 'client.writer.acks': '1' })).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_CONFIG_EXCEPTION',
        message: expect.stringContaining("client.writer.acks must be 'all'"),
      }),
    )
    expect(() => options({ 'client.writer.retries': 0 })).toThrow(/client.writer.retries must be above 0/)
    expect(() => options({ 'client.writer.max-inflight-requests-per-bucket': 6 })).toThrow(/at most 5/)
  })

  it('requires bootstrap servers and rejects unknown client keys', () => {
    expect(() => clientOptions(new Configuration({}))).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
    expect(() => toConfiguration({ 'bootstrap.servers': 'a:1', 'client.writer.batchsize': '1mb' })).toThrow(
      expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
    )
  })

  it('refuses client keys the SDK does not implement, by name, and accepts their defaults', () => {
    expect(() => options({ 'client.id': 'orders-app' })).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_CONFIG_EXCEPTION',
        message: expect.stringContaining(
          "client configuration: 'client.id' = 'orders-app' is not supported by Sluice",
        ),
      }),
    )
    expect(() => options({ 'client.metrics.enabled': true })).toThrow(
      expect.objectContaining({ message: expect.stringContaining("'client.metrics.enabled' = 'true'") }),
    )
    expect(options({ 'client.metrics.enabled': false }).writer).toBeDefined()
  })

  it('parses host:port and [ipv6]:port, rejecting anything else', () => {
    expect(parseServerAddress(' db-1.example:9123 ')).toEqual({ host: 'db-1.example', port: 9123 })
    expect(parseServerAddress('[::1]:9123')).toEqual({ host: '::1', port: 9123 })
    for (const bad of ['nohost', 'h:0', 'h:70000', ':9123', 'h:12x']) {
      expect(() => parseServerAddress(bad)).toThrow(
        expect.objectContaining({ errorName: 'INVALID_CONFIG_EXCEPTION' }),
      )
    }
  })
})
