import { parseArgs } from 'node:util';
import { validateTemplates } from './template-loader.js';

const USAGE = `usage: perimeter-scan templates validate <dir> [--json]

  Parses and compiles every nuclei template (.yaml/.yml) under <dir> without sending any
  traffic, prints the reason for each template that is skipped or invalid, and ends with
  "valid N of M". Exit code 0 when every template is valid or skipped, 1 otherwise.`;

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
  const report = await validateTemplates(dir);
  if (parsed.values.json)
    out(
      `${JSON.stringify({ valid: report.valid, total: report.total, skipped: report.skipped, invalid: report.invalid })}\n`,
    );
  out(`${report.lines.join('\n')}\n`);
  return report.invalid.length === 0 ? 0 : 1;
}
