import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { createLogger, humanLogLine, parseLogLevels } from './logger.js'

function capture(spec: string, format: 'json' | 'text' = 'json') {
  const lines: { line: string; level: string }[] = []
  const logger = createLogger({
    component: 'tablet-server',
    levels: parseLogLevels(spec),
    format,
    write: (line, level) => lines.push({ line, level }),
    nowMs: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  })
  return { logger, lines }
}

describe('the logger', () => {
  it('writes JSON lines with time, level, component, message and fields', () => {
    const { logger, lines } = capture('info')
    logger.child({ component: 'replica', table: 'db.t' }).warn('shrinking the ISR', {
      bucket: 0,
      epoch: 3,
      requestId: 17,
      error: new FlussError('NOT_LEADER_OR_FOLLOWER', 'not the leader'),
    })
    expect(JSON.parse(lines[0]?.line as string)).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      level: 'warn',
      component: 'replica',
      message: 'shrinking the ISR',
      table: 'db.t',
      bucket: 0,
      epoch: 3,
      requestId: 17,
      error: 'NOT_LEADER_OR_FOLLOWER: not the leader',
    })
    expect(lines[0]?.level).toBe('warn')
  })

  it('applies log.level per component', () => {
    const { logger, lines } = capture('warn,kv-snapshot=debug,rpc=off')
    logger.info('dropped')
    logger.child({ component: 'kv-snapshot' }).debug('kept')
    logger.child({ component: 'rpc' }).error('dropped too')
    logger.error('kept too')
    expect(lines.map(l => JSON.parse(l.line).message)).toEqual(['kept', 'kept too'])
  })

  it('refuses an unknown level', () => {
    expect(() => parseLogLevels('info,replica=loud')).toThrow(/'loud' is not one of/)
  })

  it('has a human format, and turns JSON lines into it', () => {
    const { logger, lines } = capture('info', 'text')
    logger.info('snapshot committed', { table: 'db.t', bucket: 1, note: 'two words' })
    expect(lines[0]?.line).toBe(
      '03:04:05.678 INFO  [tablet-server] snapshot committed table=db.t bucket=1 note="two words"',
    )
    const json = capture('info').lines
    createLogger({ component: 'x', write: l => json.push({ line: l, level: 'info' }) }).info('hi', { a: 1 })
    expect(humanLogLine(json[0]?.line as string)).toMatch(/ INFO {2}\[x\] hi a=1$/)
    expect(humanLogLine('tablet-server 1 listening on 127.0.0.1:1')).toBe(
      'tablet-server 1 listening on 127.0.0.1:1',
    )
  })
})
