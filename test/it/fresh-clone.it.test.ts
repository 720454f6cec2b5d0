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
import { basename, dirname, join } from 'node:path'
import { PEERS_COMMAND, PEERS_REQUIRED_ENV, REPO_ROOT } from '@sluice/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * A fresh clone has no test peers: no `.ci/.venv`, no built Java driver. The repository's files (as
 * in the work tree, tracked and untracked, without ignored ones) are copied into a temporary
 * directory with its own node_modules (the installed packages linked, the workspace packages
 * pointing into the copy), and every test file of the unit and it projects that needs a peer runs
 * there: each must print one line that names what it skipped and `npm run peers`, and the run must
 * pass. Every other file of those projects needs no peer (checked below from the sources), so it
 * runs in a fresh clone as it runs here.
 *
 * Unit files, and files whose suites are wholly skipped without peers
 * (`describe.skipIf(!peerAvailable(`), run in full: a unit file that asks inside a test prints its
 * line when that test runs. The other integration files ask at module level and run their remaining
 * tests against a built local cluster (test/it/examples, test/it/lake-pk): they are collected with a
 * test-name filter that matches no test, which runs their module code (and so the peer check) but
 * none of their tests.
 */
const RUN_TIMEOUT_MS = 180_000
const NO_TEST = 'a test name no test has'

/** The peers' paths a file names when it runs a peer itself. */
const PEER_PATHS = /\bPEER_(PYTHON|JAVA_DIR|MOTO_SERVER)\b|\.ci\/\.venv/

/** Test files of the unit and it projects (not the compat and fidelity suites, nor this one). */
function projectTestFiles(files: readonly string[]): string[] {
  return files.filter(
    f =>
      /\.test\.ts$/.test(f) &&
      !f.startsWith('test/compat/') &&
      !f.startsWith('test/fidelity/') &&
      !f.startsWith('cdk/') &&
      !f.startsWith('core/src/testing/') &&
      f !== 'test/it/fresh-clone.it.test.ts',
  )
}

/**
 * The test files that need a peer: they name a peer's path, or import a module that does (a
 * helper that runs pyiceberg, say). Each of them must ask `peerAvailable` (or import a helper
 * that asks).
 */
function peerFiles(root: string, files: readonly string[]): { needing: string[]; asking: string[] } {
  const read = (f: string) => readFileSync(join(root, f), 'utf8')
  const helpers = files.filter(
    f => /\.ts$/.test(f) && !/\.test\.ts$/.test(f) && f !== 'core/src/testing/peers.ts',
  )
  const peerHelpers = helpers.filter(f => PEER_PATHS.test(read(f)))
  const askingHelpers = peerHelpers.filter(f => read(f).includes('peerAvailable('))
  const imports = (source: string, modules: readonly string[]) =>
    modules.some(m => source.includes(`/${basename(m, '.ts')}.js'`))
  const needing: string[] = []
  const asking: string[] = []
  for (const f of projectTestFiles(files)) {
    const source = read(f)
    if (PEER_PATHS.test(source) || imports(source, peerHelpers)) needing.push(f)
    if (source.includes('peerAvailable(') || imports(source, askingHelpers)) asking.push(f)
  }
  return { needing, asking }
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

function runVitest(
  cwd: string,
  files: readonly string[],
  args: readonly string[] = [],
): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' }
  delete env[PEERS_REQUIRED_ENV]
  delete env.VITEST
  delete env.VITEST_POOL_ID
  delete env.VITEST_WORKER_ID
  delete env.NODE_OPTIONS
  const vitest = join(cwd, 'node_modules', 'vitest', 'vitest.mjs')
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitest, 'run', '--project', 'unit', '--project', 'it', ...args, ...files],
      {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
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
  let files: { needing: string[]; asking: string[] }
  let whole: string[]
  let partial: string[]
  const runs: { code: number | null; output: string }[] = []

  beforeAll(
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'sluice-fresh-clone-'))
      files = peerFiles(dir, copyRepository(dir))
      const runsWhole = (f: string) =>
        !f.endsWith('.it.test.ts') ||
        /describe\.skipIf\(!peerAvailable\(/.test(readFileSync(join(dir, f), 'utf8'))
      whole = files.asking.filter(runsWhole)
      partial = files.asking.filter(f => !runsWhole(f))
      runs.push(await runVitest(dir, whole))
      if (partial.length > 0) runs.push(await runVitest(dir, partial, ['-t', NO_TEST]))
    },
    2 * RUN_TIMEOUT_MS + 30_000,
  )

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('finds the files that need peers (unit and it projects), and each asks for them', () => {
    expect(files.asking).toEqual(
      expect.arrayContaining([
        'core/src/arrow/pyarrow.test.ts',
        'functions/tiering/src/iceberg/pyiceberg.test.ts',
        'functions/tiering/src/round/pyiceberg-round.test.ts',
        'test/fault/remote-log.it.test.ts',
        'test/it/examples.it.test.ts',
        'test/it/lake-pk.it.test.ts',
      ]),
    )
    expect(files.needing.filter(f => !files.asking.includes(f))).toEqual([])
    expect(partial).toEqual(
      expect.arrayContaining(['test/it/examples.it.test.ts', 'test/it/lake-pk.it.test.ts']),
    )
  })

  it('passes, each of those files skipping with one line that names `npm run peers`', () => {
    for (const run of runs) expect(run.code, run.output.slice(-4000)).toBe(0)
    const output = runs.map(r => r.output).join('\n')
    const lines = output.split('\n')
    for (const file of files.asking) {
      // vitest prints a file's console output under a `stderr | <file>` header.
      const printed = lines.flatMap((l, i) => (l.startsWith(`stderr | ${file}`) ? [lines[i + 1] ?? ''] : []))
      expect(printed.length, `${file} printed nothing:\n${output.slice(-4000)}`).toBeGreaterThan(0)
      for (const line of printed) {
        expect(line).toMatch(
          /^skipped .+: no Python test peers \(\.ci\/\.venv is missing\); run `npm run peers` to enable it$/,
        )
        expect(line).toContain(PEERS_COMMAND)
      }
    }
    expect(output).not.toMatch(/no Python test peers at/)
  })
})
