import { bootstrapAws } from './bootstrap.js'
import { describeLocalAws, parseCommand, USAGE } from './cli.js'
import { startLocalAws } from './local-aws.js'

/** `sluice-localstack`: local AWS endpoints without Docker (see cli.ts for the commands). */
async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2), process.env.SLUICE_DATA_DIR ?? '.sluice')
  if (command.kind === 'help') {
    console.log(USAGE)
    return
  }
  if (command.kind === 'bootstrap') {
    const credentials = {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'test',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'test',
    }
    await bootstrapAws({ ...command.endpoints, credentials })
    console.log(`created table ${command.endpoints.tableName} and bucket ${command.endpoints.bucket}`)
    return
  }
  const aws = await startLocalAws(command.options)
  console.log(
    command.json ? JSON.stringify({ ...aws, config: aws.config, env: aws.env }) : describeLocalAws(aws),
  )
  await new Promise<void>(resolve => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await aws.stop()
}

main().catch(e => {
  console.error(e instanceof Error ? e.message : e)
  console.error(USAGE)
  process.exit(1)
})
