import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PEERS_COMMAND, peerAvailable, peerProblem, REPO_ROOT, skipLine } from './peers.js'

const MISSING = { python: ['sluice_no_such_module'] }

describe('test peers', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('a missing peer skips the suite with one line naming the suite and `npm run peers`', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(peerAvailable('the example suite', MISSING, {})).toBe(false)
    expect(warn).toHaveBeenCalledTimes(1)
    const line = String(warn.mock.calls[0][0])
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toMatch(
      /^skipped the example suite: .*sluice_no_such_module|^skipped the example suite: no Python/,
    )
    expect(line).toContain(`run \`${PEERS_COMMAND}\` to enable it`)
    expect(line).toBe(skipLine('the example suite', peerProblem(MISSING) as string))
  })

  it('with SLUICE_REQUIRE_PEERS=1 a missing peer fails the suite instead', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(() => peerAvailable('the example suite', MISSING, { SLUICE_REQUIRE_PEERS: '1' })).toThrow(
      /the example suite needs test peers, and SLUICE_REQUIRE_PEERS=1: .*npm run peers/,
    )
    expect(warn).not.toHaveBeenCalled()
  })

  it('needing nothing is always available', () => {
    expect(peerAvailable('no peers', {}, { SLUICE_REQUIRE_PEERS: '1' })).toBe(true)
  })

  it('every suite finds its peers through this module (no other path to .ci/.venv or Maven)', () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(f => f !== '' && f !== 'core/src/testing/peers.ts' && f !== 'core/src/testing/peers.test.ts')
    const offenders = files.filter(f => {
      let text: string
      try {
        text = readFileSync(join(REPO_ROOT, f), 'utf8')
      } catch {
        return false
      }
      return /\.ci\/\.venv\/bin|'\.venv'|SLUICE_REQUIRE_(PEERS|MOTO)\b(?! ?=)/.test(
        text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''),
      )
    })
    expect(offenders).toEqual([])
  })
})
