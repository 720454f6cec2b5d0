import * as path from 'node:path'
import { Duration } from 'aws-cdk-lib'
import type * as ec2 from 'aws-cdk-lib/aws-ec2'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import * as logs from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import type { CpuArchitectureName, FunctionConfig } from '../stages.js'

/**
 * Bundled ESM needs CommonJS's `require` and `__dirname` for the CommonJS packages esbuild inlines
 * (zstd-wasm finds its .wasm file next to `__dirname`).
 */
const ESM_BANNER = [
  "import { createRequire as sluiceCreateRequire } from 'node:module'",
  "import { fileURLToPath as sluiceFileURLToPath } from 'node:url'",
  "import { dirname as sluiceDirname } from 'node:path'",
  'const require = sluiceCreateRequire(import.meta.url)',
  'const __filename = sluiceFileURLToPath(import.meta.url)',
  'const __dirname = sluiceDirname(__filename)',
].join(';')

/** Files that bundled packages load from disk at run time, copied next to the bundle. */
const RUNTIME_FILES = [
  'node_modules/@bokuweb/zstd-wasm/dist/common/zstd.wasm',
  'node_modules/parquet-wasm/node/parquet_wasm_bg.wasm',
]

export interface SluiceFunctionProps {
  /** Repository root: the esbuild project root and the place of package-lock.json. */
  readonly repoRoot: string
  /** Entry file relative to the repository root, e.g. `functions/tiering/src/handler.ts`. */
  readonly entry: string
  readonly config: FunctionConfig
  readonly cpuArchitecture: CpuArchitectureName
  readonly environment: Readonly<Record<string, string>>
  readonly vpc: ec2.IVpc
  readonly subnets: ec2.SubnetSelection
  readonly securityGroup: ec2.ISecurityGroup
  readonly logRetention: logs.RetentionDays
  readonly description: string
  /** Upper bound on concurrent invocations; undefined leaves the account pool shared. */
  readonly reservedConcurrentExecutions?: number
}

/**
 * A Node.js 22 Lambda function bundled locally by esbuild from the workspace's TypeScript sources
 * (the `sluice-src` export condition), so synthesis needs neither Docker nor a prior `tsc` build.
 */
export class SluiceFunction extends Construct {
  readonly function: nodejs.NodejsFunction

  constructor(scope: Construct, id: string, props: SluiceFunctionProps) {
    super(scope, id)
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention })
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(props.repoRoot, props.entry),
      handler: 'handler',
      projectRoot: props.repoRoot,
      depsLockFilePath: path.join(props.repoRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture:
        props.cpuArchitecture === 'ARM64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
      memorySize: props.config.memoryMiB,
      timeout: Duration.seconds(props.config.timeoutSeconds),
      description: props.description,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
      logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: ESM_BANNER,
        sourceMap: true,
        minify: false,
        externalModules: ['@aws-sdk/*'],
        esbuildArgs: { '--conditions': 'sluice-src' },
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) =>
            RUNTIME_FILES.map(file => `cp "${path.join(inputDir, file)}" "${outputDir}/"`),
        },
      },
    })
  }
}
