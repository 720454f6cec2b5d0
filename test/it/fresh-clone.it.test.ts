import { execFileSync, spawn } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PEERS_COMMAND, PEERS_REQUIRED_ENV, REPO_ROOT } from '@sluice/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * A fresh clone has no test peers: no `.ci/.venv`, no built Java driver. The repository's files (as
 * in the work tree, tracked and untracked, without ignored ones) are copied into a temporary
 * directory with its own node_modules (the installed packages linked, the workspace packages
 * pointing into the copy), and the suites of the unit and it projects that need peers run there:
 * each must skip, printing one line that names it and `npm run peers`, and the run must pass.
 */
const RUN_TIMEOUT_MS = 180_000

/**
 * Test files of the unit and it projects whose suites need peers (`describe.skipIf(!peerAvailable(`).
 * Suites that only check one result with a peer (test/it/lake-pk) need a build to run the rest.
 */
function peerSuites(root: string, files: readonly string[]): string[] {
  return files.filter(
    f =>
      /\.test\.ts$/.test(f) &&
      !f.startsWith('test/compat/') &&
      !f.startsWith('test/fidelity/') &&
      !f.startsWith('core/src/testing/') &&
      f !== 'test/it/fresh-clone.it.test.ts' &&
      /describe\.skipIf\(!peerAvailable\(/.test(readFileSync(join(root, f), 'utf8')),
  )
}

function copyRepository(target: string): string[] {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(f => f !== '' && !f.startsWith('.ci/.venv'))
  for (const f of files) {
    mkdirSync(dirname(join(target, f)), { recursive: true })
    try {
      cpSync(join(REPO_ROOT, f), join(target, f), { verbatimSymlinks: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e // listed but deleted in the work tree
    }
  }
  const modules = join(REPO_ROOT, 'node_modules')
  mkdirSync(join(target, 'node_modules', '@sluice'), { recursive: true })
  for (const entry of readdirSync(modules)) {
    if (entry !== '@sluice') symlinkSync(join(modules, entry), join(target, 'node_modules', entry))
  }
  for (const pkg of readdirSync(join(modules, '@sluice'))) {
    const link = readlinkSync(join(modules, '@sluice', pkg))
    symlinkSync(link, join(target, 'node_modules', '@sluice', pkg))
  }
  return files
}

function runVitest(cwd: string, files: readonly string[]): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' }
  delete env[PEERS_REQUIRED_ENV]
  delete env.VITEST
  delete env.VITEST_POOL_ID
  delete env.VITEST_WORKER_ID
  delete env.NODE_OPTIONS
  const vitest = join(cwd, 'node_modules', 'vitest', 'vitest.mjs')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, 'run', '--project', 'unit', '--project', 'it', ...files], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', d => {
      output += d
    })
    child.stderr.on('data', d => {
      output += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

describe('a fresh clone without test peers', () => {
  let dir: string
  let suites: string[]
  let run: { code: number | null; output: string }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-fresh-clone-'))
    suites = peerSuites(dir, copyRepository(dir))
    run = await runVitest(dir, suites)
  }, RUN_TIMEOUT_MS + 30_000)

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('finds the suites that need peers (unit and it projects)', () => {
    expect(suites).toEqual(
      expect.arrayContaining([
        'core/src/arrow/pyarrow.test.ts',
        'functions/tiering/src/iceberg/pyiceberg.test.ts',
        'functions/tiering/src/round/pyiceberg-round.test.ts',
        'test/fault/remote-log.it.test.ts',
      ]),
    )
  })

  it('passes, each of those suites skipping with one line that names `npm run peers`', () => {
    expect(run.code, run.output.slice(-4000)).toBe(0)
    const lines = run.output.split('\n')
    for (const suite of suites) {
      // vitest prints a suite's console output under a `stderr | <file>` header.
      const header = lines.findIndex(l => l.startsWith(`stderr | ${suite}`))
      expect(header, `${suite} printed nothing:\n${run.output.slice(-4000)}`).toBeGreaterThanOrEqual(0)
      const line = lines[header + 1]
      expect(line).toMatch(
        /^skipped .+: no Python test peers \(\.ci\/\.venv is missing\); run `npm run peers` to enable it$/,
      )
      expect(line).toContain(PEERS_COMMAND)
    }
    expect(run.output).not.toMatch(/no Python test peers at/)
  })
})
