import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { type ControlledShutdownDeps, controlledShutdown } from './controlled-shutdown.js'

const SETTINGS = { maxRetries: 3, retryIntervalMs: 1, requestTimeoutMs: 1000 }
const COORDINATOR = { host: '127.0.0.1', port: 9123, coordinatorEpoch: 4 }

/** A coordinator stand-in answering each CONTROLLED_SHUTDOWN from a script (an Error is thrown). */
function deps(answers: (number | Error)[], coordinator: typeof COORDINATOR | null = COORDINATOR) {
  const requests: unknown[] = []
  const d = {
    serverId: 7,
    controlPlane: { getActiveCoordinator: async () => coordinator ?? undefined },
    pool: {
      request: async (endpoint: unknown, api: string, body: unknown) => {
        requests.push({ endpoint, api, body })
        const answer = answers.shift() ?? 0
        if (answer instanceof Error) throw answer
        return {
          remainingLeaderBuckets: Array.from({ length: answer }, (_, i) => ({ tableId: 1, bucketId: i })),
        }
      },
    },
  } as unknown as ControlledShutdownDeps
  return { d, requests }
}

describe('controlled shutdown of a tablet server', () => {
  it('asks the active coordinator until no bucket is led here any more', async () => {
    const warnings: string[] = []
    const { d, requests } = deps([new FlussError('NETWORK_EXCEPTION', 'lost'), 2, 0])
    expect(await controlledShutdown(d, SETTINGS, m => warnings.push(m))).toBe(true)
    expect(requests).toHaveLength(3)
    expect(requests[0]).toEqual({
      endpoint: { host: '127.0.0.1', port: 9123, role: 'coordinator' },
      api: 'CONTROLLED_SHUTDOWN',
      body: { tabletServerId: 7, tabletServerEpoch: 0 },
    })
    expect(warnings).toHaveLength(2)
  })

  it('gives up after tablet-server.controlled-shutdown.max-retries attempts', async () => {
    const { d, requests } = deps([1, 1, 1, 1])
    expect(await controlledShutdown(d, SETTINGS, () => undefined)).toBe(false)
    expect(requests).toHaveLength(3)
  })

  it('does not ask at all with max-retries 0, and reports a missing coordinator', async () => {
    const { d, requests } = deps([0])
    expect(await controlledShutdown(d, { ...SETTINGS, maxRetries: 0 }, () => undefined)).toBe(false)
    expect(requests).toHaveLength(0)
    const none = deps([0], null)
    const warnings: string[] = []
    expect(await controlledShutdown(none.d, { ...SETTINGS, maxRetries: 1 }, m => warnings.push(m))).toBe(
      false,
    )
    expect(warnings[0]).toMatch(/no active coordinator/)
  })
})
