/**
 * The history of one op across a trace, following replace links: the port of
 * `passviz.trace.query.lineage`, with the same order of events.
 */

import type { StepRecord } from '../schema';

export type LineageAction = 'created' | 'modified' | 'moved' | 'replaced' | 'erased';

const ACTION_ORDER: Record<LineageAction, number> = {
  created: 0,
  modified: 1,
  moved: 2,
  replaced: 3,
  erased: 4
};

export interface LineageEvent {
  step: number;
  op: string;
  action: LineageAction;
  /** For `replaced`: the ops whose results took over the op's uses. */
  by: string[];
  /** The op's text as the step left it. */
  text: string | null;
  pattern: string | null;
}

function eventsOf(step: StepRecord): LineageEvent[] {
  const delta = step.delta ?? {};
  const texts = delta.texts ?? {};
  const event = (op: string, action: LineageAction, by: string[] = []): LineageEvent => ({
    step: step.index,
    op,
    action,
    by,
    text: texts[op] ?? null,
    pattern: step.name ?? null
  });
  return [
    ...(delta.ops_created ?? []).map(info => event(info.id, 'created')),
    ...(delta.ops_modified ?? []).map(change => event(change.id, 'modified')),
    ...(delta.ops_moved ?? []).map(id => event(id, 'moved')),
    ...(delta.replaced ?? []).map(r => event(r.op, 'replaced', r.by)),
    ...(delta.ops_erased ?? []).map(id => event(id, 'erased'))
  ];
}

function reachable(start: string, links: Map<string, Set<string>>): Set<string> {
  const seen = new Set([start]);
  const todo = [start];
  while (todo.length > 0) {
    for (const next of links.get(todo.pop()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return seen;
}

/**
 * The steps that created, changed, moved, replaced or erased `opId` and its kin:
 * replace links are followed forward to the ops that took over its uses and
 * backward to the ops it took over from.
 */
export function lineage(steps: StepRecord[], opId: string): LineageEvent[] {
  const events = new Map<string, LineageEvent[]>();
  const forward = new Map<string, Set<string>>();
  const backward = new Map<string, Set<string>>();
  const link = (links: Map<string, Set<string>>, from: string, to: string): void => {
    links.set(from, (links.get(from) ?? new Set<string>()).add(to));
  };
  for (const step of steps) {
    for (const item of eventsOf(step)) {
      events.set(item.op, [...(events.get(item.op) ?? []), item]);
      if (item.action !== 'replaced') {
        continue;
      }
      for (const next of item.by) {
        if (next !== item.op) {
          link(forward, item.op, next);
          link(backward, next, item.op);
        }
      }
    }
  }
  const kin = new Set([...reachable(opId, forward), ...reachable(opId, backward)]);
  const found = [...kin].flatMap(op => events.get(op) ?? []);
  found.sort(
    (a, b) =>
      a.step - b.step ||
      ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
      (a.op < b.op ? -1 : a.op > b.op ? 1 : 0)
  );
  return found;
}
