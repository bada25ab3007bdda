import type { AttackType } from './template-types.ts';

const MAX_COMBINATIONS = 100000;

/** `{ [names[j]]: pick(j) }` built with plain stores (no entry arrays per combination). */
function combination(names: string[], pick: (j: number) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let j = 0; j < names.length; j++) out[names[j] as string] = pick(j);
  return out;
}

/** A request without payloads: one combination of no values (shared; never written). */
const NO_PAYLOADS: readonly Record<string, string>[] = [Object.freeze({})];

/**
 * Payload combinations as nuclei's attack modes define them:
 * batteringram — one value at a time in every position; pitchfork — the i-th value of
 * every set together; clusterbomb — every combination. Lazy, so large sets cost no memory.
 * Without payloads (most requests: once per template run) no generator is made.
 */
export function payloadCombinations(
  payloads: Record<string, string[]>,
  attack: AttackType,
): Iterable<Record<string, string>> {
  for (const _name in payloads) return combinations(payloads, attack);
  return NO_PAYLOADS;
}

/**
 * A batteringram's values (each once, in order) of one payload set, kept as long as its list is:
 * every template run of a payload loop would otherwise rebuild them (a list and a set of every
 * value). Keyed weakly by the list, so a word list read from a file and held weakly (see
 * loadPayloads) goes as before.
 */
const distinctOfList = new WeakMap<readonly string[], readonly string[]>();

function distinctValues(lists: string[][]): readonly string[] {
  if (lists.length !== 1) return [...new Set(lists.flat())];
  const list = lists[0] as string[];
  let values = distinctOfList.get(list);
  if (values === undefined) {
    values = [...new Set(list)];
    distinctOfList.set(list, values);
  }
  return values;
}

function* combinations(
  payloads: Record<string, string[]>,
  attack: AttackType,
): Generator<Record<string, string>> {
  const names = Object.keys(payloads);
  const lists = names.map((n) => payloads[n] ?? []);
  if (attack === 'batteringram') {
    const values = distinctValues(lists);
    const end = Math.min(values.length, MAX_COMBINATIONS);
    for (let i = 0; i < end; i++) {
      const v = values[i] as string;
      const out: Record<string, string> = {};
      for (let j = 0; j < names.length; j++) out[names[j] as string] = v;
      yield out;
    }
    return;
  }
  if (attack === 'pitchfork') {
    const len = Math.min(...lists.map((l) => l.length));
    for (let i = 0; i < Math.min(len, MAX_COMBINATIONS); i++)
      yield combination(names, (j) => (lists[j] as string[])[i] as string);
    return;
  }
  if (lists.some((l) => l.length === 0)) return;
  const idx = names.map(() => 0);
  for (let count = 0; count < MAX_COMBINATIONS; count++) {
    yield combination(names, (j) => (lists[j] as string[])[idx[j] as number] as string);
    let k = names.length - 1;
    while (k >= 0) {
      idx[k] = (idx[k] as number) + 1;
      if ((idx[k] as number) < (lists[k] as string[]).length) break;
      idx[k] = 0;
      k--;
    }
    if (k < 0) return;
  }
}
