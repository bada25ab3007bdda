/**
 * Operator commands: `npm run cli -- <command>` from the repository root.
 * They use the same configuration as the server (DATABASE_URL, or the embedded database under
 * PERIMETER_DATA_DIR, joined when the product is running).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './lib/config/index.ts';
import { AppError } from './lib/errors.ts';
import { createLogger } from './lib/logger.ts';
import { assignPlan } from './modules/billing/billing-service.ts';
import { nextCronRun } from './modules/intel/intel-jobs.ts';
import { intelCommand } from './modules/intel/intel-service.ts';
import { readOutbox } from './modules/mail/mail-service.ts';
import { cveCommand, leaksCommand } from './modules/scans/scans-intel-service.ts';
import { TemplateSetError, templatesCommand } from './modules/templates/templates-service.ts';
import { openRuntime, type Runtime } from './server/runtime.ts';

const USAGE = `Usage: npm run cli -- <command>

  maintenance on [--message "<html>"]   answer 503 with the message on every API route but ping
  maintenance off                       end maintenance mode
  maintenance status                    print the current state
  mail outbox [--limit N]               print the latest mails (live links once: then removed)
  plans assign <email> <plan>           set a user's plan (trial_scan, try_it, starter, business, enterprise)
  cve import <file|dir|url>...          load NVD 1.1/2.0 or retire.js feeds (JSON or .gz) into the CVE database
  cve status                            print how many CVE records are loaded
  intel sync [--source nvd|kev|epss|retire]   sync vulnerability intelligence now (shows progress)
  intel status                          per source: records, last success, last error, next run; leak providers
  intel export <file>                   write the CVE database, KEV and EPSS to one file \`cve import\` loads
  leaks import <file> [--source NAME]   load leaked credentials (JSON, CSV with an email column, or email:password lines)
  leaks status                          print how many leak records are loaded
  templates import <dir|.tar.gz> [--name N] [--version V]
                                        install a template set (e.g. the nuclei-templates corpus) for every worker
  templates status                      print the sets: version, hash, loaded/skipped/invalid with reasons
  templates disable|enable <name|hash>  stop or resume running a set
`;

type Command = (runtime: Runtime, args: string[]) => Promise<void>;

const commands: Record<string, Command> = {
  cve: (runtime, args) => cveCommand(runtime.ctx, args),
  intel: (runtime, args) => intelCommand(runtime.ctx, args, (cron) => nextCronRun(cron)),
  leaks: (runtime, args) => leaksCommand(runtime.ctx, args),
  async templates(runtime, args) {
    try {
      await templatesCommand(runtime.ctx, args);
    } catch (err) {
      throw err instanceof TemplateSetError ? new UsageError(err.message) : err;
    }
  },
  async maintenance(runtime, args) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { message: { type: 'string' } },
    });
    const [action = 'status'] = positionals;
    if (action === 'on') {
      await runtime.maintenance.set({ enabled: true, message: values.message ?? null });
    } else if (action === 'off') {
      await runtime.maintenance.set({ enabled: false, message: null });
    } else if (action !== 'status') {
      throw new UsageError(`Unknown maintenance action "${action}".`);
    }
    const state = await runtime.maintenance.get();
    console.log(
      `maintenance mode: ${state.enabled ? 'on' : 'off'}${state.message ? ` — ${state.message}` : ''}`,
    );
  },
  async mail(runtime, args) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { limit: { type: 'string' } },
    });
    if (positionals[0] !== 'outbox') throw new UsageError('Only "mail outbox" exists.');
    for (const row of await readOutbox(runtime.ctx.db, Number(values.limit ?? 10)))
      console.log(
        `--- ${row.createdAt.toISOString()} to ${row.to} [${row.status}] ${row.subject}\n${row.text}`,
      );
  },
  async plans(runtime, args) {
    const [action, email, plan] = args;
    if (action !== 'assign' || !email || !plan) throw new UsageError('Use "plans assign <email> <plan>".');
    try {
      const res = await assignPlan(runtime.ctx, email, plan);
      console.log(`${email}: plan ${res.plan}`);
    } catch (err) {
      throw err instanceof AppError ? new UsageError(err.detail) : err;
    }
  },
};

class UsageError extends Error {}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.error(name ? `Unknown command "${name}".\n\n${USAGE}` : USAGE);
    process.exit(64);
  }
  const config = loadConfig();
  const runtime = await openRuntime(config, createLogger('warn'));
  try {
    await command(runtime, args);
  } finally {
    await runtime.close();
  }
}

main().catch((err) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(64);
  }
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
