import { DSL_FUNCTIONS, type DslValue } from './dsl-functions.ts';
import { EXTRA_DSL_FUNCTIONS } from './dsl-functions-extra.ts';

export type DslFunction = { min: number; max: number; fn: (args: DslValue[]) => DslValue };

/** Every helper function, by its nuclei name. */
export const ALL_DSL_FUNCTIONS: Readonly<Record<string, DslFunction>> = {
  ...DSL_FUNCTIONS,
  ...EXTRA_DSL_FUNCTIONS,
};

// nuclei registers each helper a second time with the underscores removed (`to_lower` and
// `tolower`, `rand_base` and `randbase`) for templates written before the rename.
const BY_NAME = new Map<string, DslFunction>();
for (const [name, fn] of Object.entries(ALL_DSL_FUNCTIONS)) BY_NAME.set(name.replace(/_/g, ''), fn);
for (const [name, fn] of Object.entries(ALL_DSL_FUNCTIONS)) BY_NAME.set(name, fn);

/** The helper called `name` (case-insensitive, with or without underscores), if any. */
export function findDslFunction(name: string): DslFunction | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/**
 * Functions nuclei has that need something a scan of the customer's host must not do or that
 * only out-of-band templates use; a template calling one is skipped with this reason.
 */
export const SKIPPED_DSL_FUNCTIONS: Readonly<Record<string, string>> = {
  public_ip: 'needs the scanner public IP (asks an outside service)',
  publicip: 'needs the scanner public IP (asks an outside service)',
  llm_prompt: 'calls an LLM service',
  llmprompt: 'calls an LLM service',
};

/**
 * nuclei helpers we do not have; a template calling one is reported with this reason.
 * (`cookie_unsign` is no nuclei helper: nuclei's DSL has none of that name, so a template
 * calling it fails there as here, as an unknown function.)
 */
export const UNSUPPORTED_DSL_FUNCTIONS: ReadonlySet<string> = new Set(
  ['generate_dotnet_gadget'].flatMap((n) => [n, n.replace(/_/g, '')]),
);
