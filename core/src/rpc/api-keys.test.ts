import { describe, expect, expectTypeOf, it } from 'vitest'
import { ApiKeys, type ApiName, type ApiNameFor, apiByKey, describeApiKey } from './api-keys.js'
import type { ProduceLogRequest, ProduceLogResponseInit } from './generated/fluss-api.js'
import type { Handler, TabletHandlers } from './handler.js'

describe('ApiKeys', () => {
  const specs = Object.values(ApiKeys)

  // Described, not served: the coordinator and tablet server served-apis tests assert which of these
  // each role registers and advertises.
  it('describes 47 APIs of Fluss 0.9.1 with unique key numbers', () => {
    expect(specs).toHaveLength(47)
    expect(new Set(specs.map(s => s.key)).size).toBe(47)
    for (const spec of specs) {
      expect(describeApiKey(spec.key)).toBe(`${spec.name}(${spec.key})`)
      expect(apiByKey(spec.key)?.name).toBe(spec.name)
    }
    expect(apiByKey(1060)).toBeUndefined() // ALTER_DATABASE arrived after 0.9.1
    expect(describeApiKey(1039)).toBe('CREATE_ACLS(1039)')
    expect(describeApiKey(7)).toBe('UNKNOWN(7)')
  })

  it('has version 0..1 for PUT_KV, LOOKUP and PREFIX_LOOKUP and 0..0 for everything else', () => {
    const multi = specs.filter(s => s.maxVersion > 0).map(s => [s.name, s.minVersion, s.maxVersion])
    expect(multi).toEqual([
      ['PUT_KV', 0, 1],
      ['LOOKUP', 0, 1],
      ['PREFIX_LOOKUP', 0, 1],
    ])
  })

  it('assigns each API to the role that serves it', () => {
    const scope = (name: ApiName) => ApiKeys[name].scope
    expect(
      ['PRODUCE_LOG', 'FETCH_LOG', 'NOTIFY_LEADER_AND_ISR', 'INIT_WRITER'].map(n => scope(n as ApiName)),
    ).toEqual(['tablet', 'tablet', 'tablet', 'tablet'])
    expect(['CREATE_TABLE', 'ADJUST_ISR', 'LAKE_TIERING_HEARTBEAT'].map(n => scope(n as ApiName))).toEqual([
      'coordinator',
      'coordinator',
      'coordinator',
    ])
    expect(['API_VERSIONS', 'GET_METADATA', 'AUTHENTICATE'].map(n => scope(n as ApiName))).toEqual([
      'both',
      'both',
      'both',
    ])
    expect(specs.filter(s => s.internal)).toHaveLength(12)
  })

  it('types handlers by API', () => {
    expectTypeOf<Handler<'PRODUCE_LOG'>>().parameter(0).toEqualTypeOf<ProduceLogRequest>()
    expectTypeOf<ReturnType<Handler<'PRODUCE_LOG'>>>().toEqualTypeOf<
      ProduceLogResponseInit | Promise<ProduceLogResponseInit>
    >()
    expectTypeOf<keyof TabletHandlers>().toEqualTypeOf<Exclude<ApiNameFor<'tablet'>, 'API_VERSIONS'>>()
    expectTypeOf<'PRODUCE_LOG'>().toMatchTypeOf<keyof TabletHandlers>()
    expectTypeOf<'GET_METADATA'>().toMatchTypeOf<keyof TabletHandlers>()
    expectTypeOf<'CREATE_TABLE'>().not.toMatchTypeOf<keyof TabletHandlers>()
  })
})
