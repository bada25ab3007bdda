import { parseArgs } from 'node:util';
import { TemplatePathError, validateTemplates } from './template-loader.ts';

const USAGE = `usage: perimeter-scan templates validate <dir|file> [--json]

  Parses and compiles every nuclei template (.yaml/.yml) under <dir> (or the one <file>)
  without sending any traffic, prints the reason for each template that is skipped or
  invalid, the skipped templates counted by reason, and ends with "valid N of M".
  Payload files under helpers/ are read from the corpus root (the folder above that holds
  helpers/). Exit code 0 when every template is valid or skipped, 1 otherwise, 2 for a
  usage error or a path that does not exist.`;

/** `perimeter-scan templates …` subcommands. Returns the exit code. */
export async function runTemplatesCommand(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (e) {
    out(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command, dir] = parsed.positionals;
  if (parsed.values.help || command !== 'validate' || !dir) {
    out(`${USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }
  let report: Awaited<ReturnType<typeof validateTemplates>>;
  try {
    report = await validateTemplates(dir);
  } catch (err) {
    if (!(err instanceof TemplatePathError)) throw err;
    out(`${err.message}\n`);
    return 2;
  }
  if (parsed.values.json)
    out(
      `${JSON.stringify({ valid: report.valid, total: report.total, skipped: report.skipped, skippedByReason: report.skippedByReason, invalid: report.invalid })}\n`,
    );
  out(`${report.lines.join('\n')}\n`);
  return report.invalid.length === 0 ? 0 : 1;
}
