/**
 * The dispatch graph of one step: what `iree-opt --iree-flow-dump-dispatch-graph` draws.
 *
 * Each function of the module (`util.func`, `func.func` at the top level) is
 * a box holding its arguments, the ops of its body and its return; a dispatch
 * (`flow.dispatch.region`, `flow.dispatch.workgroups` or, once outlined,
 * `flow.dispatch`) is one node, whatever it holds, and the tensors flowing
 * between them are edges, a region's captured values included.  As in IREE's
 * dump, constants are left out.  Outlined `flow.executable` ops are nodes too,
 * and each `flow.dispatch` links to the executable it calls.
 *
 * A pure function of the IR state, the same as `passviz/view/dispatch.py`
 * (checked by the golden fixtures of `tests/golden.py`).
 */

import type { BlockEntry, IRState } from './state';

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

/** The ops that are one dispatch each. */
const DISPATCH_OPS: ReadonlySet<string> = new Set(['flow.dispatch.region', 'flow.dispatch.workgroups', 'flow.dispatch']);

const FUNCTION_OPS: ReadonlySet<string> = new Set(['util.func', 'func.func']);
const RETURN_OPS: ReadonlySet<string> = new Set(['util.return', 'func.return']);

/** Ops in a dispatch that move its tensors in and out rather than compute: not named as its members. */
const PLUMBING: ReadonlySet<string> = new Set([
  'flow.return',
  'flow.dispatch.workgroup_count_from_dag_root',
  'flow.dispatch.workgroup_count_from_slice',
  'iree_tensor_ext.dispatch.tensor.load',
  'iree_tensor_ext.dispatch.tensor.store',
  'iree_tensor_ext.dispatch.workload.ordinal',
  'flow.dispatch.tensor.load',
  'flow.dispatch.tensor.store',
  'tensor.empty',
  'func.return',
  'linalg.yield'
]);

const isConstant = (name: string): boolean => name.endsWith('.constant');

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

/** The computing ops a dispatch or executable holds, looking through modules and functions. */
function members(state: IRState, opId: string): string[] {
  const found: string[] = [];
  for (const child of bodyOps(state, opId)) {
    const name = state.op(child).name;
    if (FUNCTION_OPS.has(name) || name === 'builtin.module' || name === 'flow.executable.export') {
      found.push(...members(state, child));
    } else if (!PLUMBING.has(name) && !isConstant(name)) {
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

/** A `flow.dispatch`'s `entry_points` without the brackets: `@executable::@entry`. */
const entryPoints = (state: IRState, opId: string): string => (symbol(state, opId, 'entry_points') ?? '').replace(/^[[\]]+|[[\]]+$/g, '');

function label(state: IRState, opId: string, kind: DispatchNodeKind, index: number): string {
  const name = state.op(opId).name;
  if (kind === 'executable') {
    return `flow.executable @${unquote(symbol(state, opId, 'sym_name') ?? '?')}`;
  }
  if (name === 'flow.dispatch') {
    return `flow.dispatch ${entryPoints(state, opId)}`.trimEnd();
  }
  return kind === 'dispatch' ? `${name} #${index}` : name;
}

/** The dispatch graph of `state`. */
export function dispatchGraph(state: IRState): DispatchGraph {
  const nodes = new Map<string, DispatchNode>();
  const edges = new Map<string, DispatchEdge>();
  const executables = new Map<string, string>();
  const calls: Array<[string, string]> = [];
  const top = state.ops.has(state.root) ? bodyOps(state, state.root) : [];
  let count = 0;
  for (const holder of top) {
    const op = state.op(holder);
    if (op.name === 'flow.executable') {
      nodes.set(holder, { id: holder, kind: 'executable', parent: null, label: label(state, holder, 'executable', 0), members: members(state, holder) });
      executables.set(unquote(symbol(state, holder, 'sym_name')), holder);
      continue;
    }
    const blocks = op.regions.length > 0 ? state.regions.get(op.regions[0])?.blocks ?? [] : [];
    if (!FUNCTION_OPS.has(op.name) || blocks.length === 0) {
      continue;
    }
    nodes.set(holder, { id: holder, kind: 'func', parent: null, label: `${op.name} @${unquote(symbol(state, holder, 'sym_name'))}`, members: [] });
    const entry = state.block(blocks[0]);
    const producers = new Map<string, string>();
    for (const arg of entry.args) {
      nodes.set(arg, { id: arg, kind: 'arg', parent: holder, label: `%${arg}: ${state.values.get(arg)?.type ?? '?'}`, members: [] });
      producers.set(arg, arg);
    }
    for (const child of entry.ops) {
      const childOp = state.op(child);
      if (isConstant(childOp.name)) {
        continue;
      }
      const dispatch = DISPATCH_OPS.has(childOp.name);
      const kind: DispatchNodeKind = dispatch ? 'dispatch' : RETURN_OPS.has(childOp.name) ? 'return' : 'op';
      nodes.set(child, { id: child, kind, parent: holder, label: label(state, child, kind, count), members: dispatch ? members(state, child) : [] });
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
      if (childOp.name === 'flow.dispatch') {
        const callee = entryPoints(state, child).split('::')[0].replace(/^@+/, '');
        calls.push([child, callee]);
      }
    }
  }
  for (const [dispatch, callee] of calls) {
    const target = executables.get(callee);
    if (target !== undefined) {
      const id = `${dispatch}>${target}:calls`;
      edges.set(id, { id, kind: 'calls', source: dispatch, target, label: '' });
    }
  }
  return { nodes, edges };
}

/**
 * The ops the dispatch graph's call edges join `opId` to: the executable a
 * `flow.dispatch` calls, or the `flow.dispatch` ops that call an executable.
 */
export function callPartners(state: IRState, opId: string): string[] {
  const name = state.ops.get(opId)?.name;
  if (name !== 'flow.dispatch' && name !== 'flow.executable') {
    return [];
  }
  return graphCallPartners(dispatchGraph(state), opId);
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
