/**
 * How a step is named and counted in every list: the timeline, the title bar,
 * and (through its Python twin, `passviz.trace.query.step_label`) `passviz
 * steps`.  Steps the greedy driver names by what it did (`fold`,
 * `erase-dead-op`, ...) also name the op they did it to, and a fold the value
 * that replaced it: "fold arith.addi → %v12".
 */

import type { Delta, StepRecord } from '../schema';

/** Step names that say what was done, not which pattern did it: they name their op too. */
export const AUTOMATIC_NAMES: ReadonlySet<string> = new Set([
  'fold',
  'erase-dead-op',
  'unique-constant',
  'hoist-constant',
  'simplify-regions',
  'cse'
]);

/** Every op's name by id, from the initial IR and every step's created ops. */
export function opNames(initial: Delta, steps: readonly StepRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const delta of [initial, ...steps.map(s => s.delta ?? {})]) {
    for (const op of delta.ops_created ?? []) {
      names.set(op.id, op.name);
    }
  }
  return names;
}

/** The values that replaced `op`'s results in `delta`, as `%id`s. */
function replacements(delta: Delta, op: string): string[] {
  const found: string[] = [];
  for (const replacement of delta.replaced ?? []) {
    if (replacement.op !== op) {
      continue;
    }
    for (const [, value] of replacement.values) {
      if (value !== null) {
        found.push(`%${value}`);
      }
    }
  }
  return found;
}

/** The step's name as lists show it. */
export function stepLabel(step: StepRecord, names: ReadonlyMap<string, string>): string {
  const name = step.name ?? step.kind;
  if (step.name === undefined || !AUTOMATIC_NAMES.has(step.name) || step.root === undefined) {
    return name;
  }
  const op = names.get(step.root) ?? step.root;
  const into = replacements(step.delta ?? {}, step.root);
  return into.length > 0 ? `${name} ${op} → ${into.join(', ')}` : `${name} ${op}`;
}

/** `+added -erased ~modified` and the moves and block changes: the CLI's `step_counts`. */
export function stepCounts(step: StepRecord): string {
  const delta = step.delta ?? {};
  let text = `+${delta.ops_created?.length ?? 0} -${delta.ops_erased?.length ?? 0} ~${delta.ops_modified?.length ?? 0}`;
  const extras: Array<[string, number]> = [
    ['moved', delta.ops_moved?.length ?? 0],
    ['blocks+', delta.blocks_created?.length ?? 0],
    ['blocks-', delta.blocks_erased?.length ?? 0],
    ['blocks moved', delta.blocks_moved?.length ?? 0],
    ['args changed', Object.keys(delta.block_args ?? {}).length]
  ];
  for (const [name, n] of extras) {
    if (n > 0) {
      text += `  ${name} ${n}`;
    }
  }
  return text;
}
