/**
 * The dispatch graph of one step: what `iree-opt --iree-flow-dump-dispatch-graph` draws.
 *
 * Which ops play which part is the trace's to say: its `meta.dispatch`
 * (`DispatchVocabulary`, recorded from the family that defines a dispatch
 * graph, IREE's) names them, and a trace without it has no dispatch graph.
 * Each function at the top of the module is a box holding its arguments, the
 * ops of its body and its return; a dispatch op (a region, its workgroups or,
 * once outlined, the call of an executable) is one node, whatever it holds,
 * and the tensors flowing between them are edges, a region's captured values
 * included.  As in IREE's dump, constants (ops of no operand and no region
 * with a `value`) are left out.  Executables are nodes too, and each call
 * links to the executable it calls.
 *
 * A pure function of the IR state and the vocabulary, the same as
 * `passviz/view/dispatch.py` (checked by the golden fixtures of `tests/golden.py`).
 */

import type { DispatchVocabulary } from '../schema';
import { irLines, printedNames } from './irtext';
import type { BlockEntry, IRState } from './state';

export type { DispatchVocabulary };

export type DispatchNodeKind = 'func' | 'arg' | 'op' | 'dispatch' | 'return' | 'executable';

export interface DispatchNode {
  /** The op's (or argument's) trace id. */
  id: string;
  kind: DispatchNodeKind;
  /** The function box holding it; null for functions and executables. */
  parent: string | null;
  label: string;
  /** For a dispatch or executable: the ids of the ops it computes, in IR order. */
  members: string[];
}

export interface DispatchEdge {
  id: string;
  /** A tensor from one node to another, or a dispatch's call of its executable. */
  kind: 'tensor' | 'calls';
  source: string;
  target: string;
  /** The tensor's type (empty for `calls`). */
  label: string;
}

export interface DispatchGraph {
  /** In IR order. */
  nodes: Map<string, DispatchNode>;
  /** In their targets' order, the calls last. */
  edges: Map<string, DispatchEdge>;
}

const LISTS = ['dispatch_ops', 'function_ops', 'return_ops', 'plumbing_ops', 'container_ops'] as const;
const NAMES = ['executable_op', 'call_op', 'entry_points'] as const;

/**
 * A trace's `meta.dispatch` if it is one (lists of op names and names), else null: a trace
 * without one, or with one the viewer cannot read, has no dispatch graph.
 */
export function dispatchVocabulary(recorded: unknown): DispatchVocabulary | null {
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) {
    return null;
  }
  const fields = recorded as Record<string, unknown>;
  const lists = LISTS.every(key => Array.isArray(fields[key]) && (fields[key] as unknown[]).every(item => typeof item === 'string'));
  return lists && NAMES.every(key => typeof fields[key] === 'string') ? (recorded as DispatchVocabulary) : null;
}

/** Whether `opId` is a constant: no operand, no region, a `value`. */
function isConstant(state: IRState, opId: string): boolean {
  const op = state.op(opId);
  return op.operands.length === 0 && op.regions.length === 0 && (op.props.value ?? op.attrs.value) !== undefined;
}

function symbol(state: IRState, opId: string, key: string): string | null {
  const op = state.op(opId);
  return op.props[key] ?? op.attrs[key] ?? null;
}

/** The blocks of every region of `opId`, one level deep, in order. */
function blocksOf(state: IRState, opId: string): BlockEntry[] {
  const blocks: BlockEntry[] = [];
  for (const regionId of state.op(opId).regions) {
    for (const blockId of state.regions.get(regionId)?.blocks ?? []) {
      const block = state.blocks.get(blockId);
      if (block !== undefined) {
        blocks.push(block);
      }
    }
  }
  return blocks;
}

/** The ops of every block of every region of `opId`, one level deep, in order. */
function bodyOps(state: IRState, opId: string): string[] {
  return blocksOf(state, opId).flatMap(block => block.ops);
}

/** The computing ops a dispatch or executable holds, looking through functions and containers. */
function members(state: IRState, opId: string, hints: DispatchVocabulary): string[] {
  const found: string[] = [];
  for (const child of bodyOps(state, opId)) {
    const name = state.op(child).name;
    if (hints.function_ops.includes(name) || hints.container_ops.includes(name)) {
      found.push(...members(state, child, hints));
    } else if (!hints.plumbing_ops.includes(name) && !isConstant(state, child)) {
      found.push(child);
    }
  }
  return found;
}

/** The block arguments of every block of `opId`'s regions. */
function regionArgs(state: IRState, opId: string): string[] {
  return blocksOf(state, opId).flatMap(block => block.args);
}

/** The values `opId` reads: its operands, then the values its regions capture, first use first. */
function inputs(state: IRState, opId: string): string[] {
  const seen = new Set(state.op(opId).operands);
  const nested: string[] = [];
  const stack = bodyOps(state, opId).reverse();
  while (stack.length > 0) {
    const child = stack.pop()!;
    nested.push(child);
    stack.push(...bodyOps(state, child).reverse());
  }
  const inside = new Set<string>(regionArgs(state, opId));
  for (const child of nested) {
    for (const id of state.op(child).results) {
      inside.add(id);
    }
    for (const id of regionArgs(state, child)) {
      inside.add(id);
    }
  }
  for (const child of nested) {
    for (const value of state.op(child).operands) {
      if (!inside.has(value)) {
        seen.add(value);
      }
    }
  }
  return [...seen];
}

const unquote = (text: string | null): string => (text ?? '').replace(/^"+|"+$/g, '');

/** What a call names, without the brackets: `@executable::@entry`. */
const callee = (state: IRState, opId: string, hints: DispatchVocabulary): string =>
  (symbol(state, opId, hints.entry_points) ?? '').replace(/^[[\]]+|[[\]]+$/g, '');

function label(state: IRState, opId: string, kind: DispatchNodeKind, index: number, hints: DispatchVocabulary): string {
  const name = state.op(opId).name;
  if (kind === 'executable') {
    return `${name} @${unquote(symbol(state, opId, 'sym_name') ?? '?')}`;
  }
  if (name === hints.call_op) {
    return `${name} ${callee(state, opId, hints)}`.trimEnd();
  }
  return kind === 'dispatch' ? `${name} #${index}` : name;
}

/** The dispatch graph of `state` as `hints` (a trace's `meta.dispatch`) define it; empty without them. */
export function dispatchGraph(state: IRState, hints: DispatchVocabulary | null): DispatchGraph {
  const nodes = new Map<string, DispatchNode>();
  const edges = new Map<string, DispatchEdge>();
  if (hints === null) {
    return { nodes, edges };
  }
  const executables = new Map<string, string>();
  const calls: Array<[string, string]> = [];
  const top = state.ops.has(state.root) ? bodyOps(state, state.root) : [];
  let count = 0;
  // Arguments are labelled as the IR pane and the CLI print them (`%arg0`), not by trace id.
  const names = top.length > 0 ? printedNames(state, irLines(state)).values : new Map<string, string>();
  for (const holder of top) {
    const op = state.op(holder);
    if (op.name === hints.executable_op) {
      nodes.set(holder, { id: holder, kind: 'executable', parent: null, label: label(state, holder, 'executable', 0, hints), members: members(state, holder, hints) });
      executables.set(unquote(symbol(state, holder, 'sym_name')), holder);
      continue;
    }
    const blocks = op.regions.length > 0 ? state.regions.get(op.regions[0])?.blocks ?? [] : [];
    if (!hints.function_ops.includes(op.name) || blocks.length === 0) {
      continue;
    }
    nodes.set(holder, { id: holder, kind: 'func', parent: null, label: `${op.name} @${unquote(symbol(state, holder, 'sym_name'))}`, members: [] });
    const entry = state.block(blocks[0]);
    const producers = new Map<string, string>();
    for (const arg of entry.args) {
      nodes.set(arg, { id: arg, kind: 'arg', parent: holder, label: `%${names.get(arg) ?? arg}: ${state.values.get(arg)?.type ?? '?'}`, members: [] });
      producers.set(arg, arg);
    }
    for (const child of entry.ops) {
      const childOp = state.op(child);
      if (isConstant(state, child)) {
        continue;
      }
      const dispatch = hints.dispatch_ops.includes(childOp.name);
      const kind: DispatchNodeKind = dispatch ? 'dispatch' : hints.return_ops.includes(childOp.name) ? 'return' : 'op';
      nodes.set(child, { id: child, kind, parent: holder, label: label(state, child, kind, count, hints), members: dispatch ? members(state, child, hints) : [] });
      count += dispatch ? 1 : 0;
      for (const value of inputs(state, child)) {
        const source = producers.get(value);
        if (source === undefined) {
          continue;
        }
        const id = `${source}>${child}:${value}`;
        edges.set(id, { id, kind: 'tensor', source, target: child, label: state.values.get(value)?.type ?? '?' });
      }
      for (const result of childOp.results) {
        producers.set(result, child);
      }
      if (childOp.name === hints.call_op) {
        calls.push([child, callee(state, child, hints).split('::')[0].replace(/^@+/, '')]);
      }
    }
  }
  for (const [dispatch, target] of calls) {
    const executable = executables.get(target);
    if (executable !== undefined) {
      const id = `${dispatch}>${executable}:calls`;
      edges.set(id, { id, kind: 'calls', source: dispatch, target: executable, label: '' });
    }
  }
  return { nodes, edges };
}

/**
 * The ops the dispatch graph's call edges join `opId` to: the executable a
 * call (`hints.call_op`) calls, or the calls of an executable.
 */
export function callPartners(state: IRState, opId: string, hints: DispatchVocabulary | null): string[] {
  const name = state.ops.get(opId)?.name;
  if (hints === null || (name !== hints.call_op && name !== hints.executable_op)) {
    return [];
  }
  return graphCallPartners(dispatchGraph(state, hints), opId);
}

/** The nodes `graph`'s call edges join `id` to, in edge order. */
export function graphCallPartners(graph: DispatchGraph, id: string): string[] {
  const partners: string[] = [];
  for (const edge of graph.edges.values()) {
    if (edge.kind === 'calls' && (edge.source === id || edge.target === id)) {
      partners.push(edge.source === id ? edge.target : edge.source);
    }
  }
  return partners;
}
