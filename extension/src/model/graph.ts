/**
 * The graph the viewer draws for one step: ops, block arguments, and the
 * blocks and region-holding ops as nested compound boxes (and the regions
 * too, for an op that has more than one); dataflow
 * edges from each value's definition to each use and control-flow edges from
 * a block to its successors.  Every node is keyed by its stable trace id, so
 * the same op is the same node at every step.
 */

import { irLines, printedNames } from './irtext';
import type { IRState, OpEntry } from './state';

export type NodeKind = 'op' | 'box' | 'region' | 'block' | 'arg';
export type EdgeKind = 'use' | 'branch';

export interface GraphNode {
  id: string;
  kind: NodeKind;
  /** The enclosing box (block, region or op), or null at the top. */
  parent: string | null;
  label: string;
  /** The IR the node stands for. */
  text: string;
}

export interface GraphEdge {
  id: string;
  kind: EdgeKind;
  source: string;
  target: string;
  label: string;
}

export interface GraphData {
  /** Nodes in IR pre-order: every box comes before what it holds. */
  nodes: Map<string, GraphNode>;
  edges: Map<string, GraphEdge>;
}

function shortType(type: string): string {
  return type.length > 24 ? `${type.slice(0, 23)}…` : type;
}

/** Text past this many characters is cut with an ellipsis in a node's label (the whole op shows on hover). */
const LABEL_LIMIT = 40;

/** `text` cut to `limit` characters with an ellipsis. */
export function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** A constant's value as its node shows it: `16`, `dense<16>`, `1.0`. */
function constantValue(op: OpEntry): string | null {
  const value = op.props.value ?? op.attrs.value;
  if (value === undefined) {
    return null;
  }
  // `1 : i32` reads as `1`; a dense value keeps its elements, not its long tensor type.
  return cut(value.replace(/\s*:\s*[^:]*$/, ''), 18);
}

/**
 * What an op's node says: the value it defines and the op (`%v12 = arith.addi`,
 * or with the source's name, `%pid_m = arith.divsi`), constants with their value.
 */
function opLabel(op: OpEntry, names: ReadonlyMap<string, string>): string {
  let label = op.name;
  const value = op.name.endsWith('.constant') ? constantValue(op) : null;
  if (value !== null) {
    label += ` ${value}`;
  }
  if (op.results.length > 0) {
    const first = op.results[0];
    const more = op.results.length > 1 ? ', …' : '';
    label = `%${names.get(first) ?? first}${more} = ${label}`;
  }
  return cut(label, LABEL_LIMIT);
}

/** A box's label: the op, and the symbol it defines (`tt.func @matmul_kernel`). */
function boxLabel(op: OpEntry): string {
  const symbol = op.props.sym_name ?? op.attrs.sym_name;
  return symbol === undefined ? op.name : cut(`${op.name} @${symbol.replace(/^"|"$/g, '')}`, 60);
}

/** An op's node and its outgoing edges as last built, reused while the op's entry and names stay. */
interface OpParts {
  node: GraphNode;
  /** The shown name of the op's first result when the node was built. */
  name: string | undefined;
  /** One use edge per operand (null: the value is unknown), then the branch edges. */
  uses: Array<GraphEdge | null>;
  branches: GraphEdge[];
}

/**
 * Builds the graph of a state, reusing the nodes and edges of ops whose
 * entries did not change since an earlier build.  State entries are never
 * mutated (an update replaces the entry), so an entry seen before stands for
 * the same op: a step that changed ten ops of a 5,000-op module builds ten
 * nodes, and the graphs of two steps share their unchanged node objects, which
 * lets `diffGraphs` and the view tell what is unchanged by identity.
 */
export class GraphBuilder {
  private readonly parts = new WeakMap<OpEntry, OpParts>();

  /** The graph of the IR in `state`, reachable from its root. */
  build(state: IRState): GraphData {
    const nodes = new Map<string, GraphNode>();
    const edges = new Map<string, GraphEdge>();
    // Values are named as the IR pane and the CLI print them (`%pid_m`, else MLIR's `%12`).
    const names = printedNames(state, irLines(state)).values;
    const ops: Array<[OpEntry, OpParts]> = [];
    const addOp = (opId: string, parent: string | null): void => {
      const op = state.op(opId);
      const parts = this.opParts(op, parent, names, state);
      ops.push([op, parts]);
      nodes.set(opId, parts.node);
      // An op with one region holds its blocks itself; with several, each region is a box.
      const boxedRegions = op.regions.length > 1;
      op.regions.forEach((regionId, regionIndex) => {
        const region = state.regions.get(regionId);
        if (!region) {
          return;
        }
        if (!boxedRegions) {
          for (const blockId of region.blocks) {
            addBlock(blockId, opId);
          }
          return;
        }
        nodes.set(regionId, {
          id: regionId,
          kind: 'region',
          parent: opId,
          label: `region #${regionIndex}`,
          text: `region #${regionIndex} of ${op.name}`
        });
        for (const blockId of region.blocks) {
          addBlock(blockId, regionId);
        }
      });
    };
    const addBlock = (blockId: string, parent: string): void => {
      const block = state.block(blockId);
      const args = block.args.map(a => `%${a}: ${state.values.get(a)?.type ?? '?'}`);
      nodes.set(blockId, {
        id: blockId,
        kind: 'block',
        parent,
        label: `^${blockId}`,
        // The ops a block holds are drawn inside it and have statuses of their own.
        text: `^${blockId}(${args.join(', ')})`
      });
      for (const argId of block.args) {
        const type = state.values.get(argId)?.type ?? '?';
        nodes.set(argId, {
          id: argId,
          kind: 'arg',
          parent: blockId,
          label: `%${names.get(argId) ?? argId}: ${shortType(type)}`,
          text: `%${argId}: ${type}`
        });
      }
      for (const opId of block.ops) {
        addOp(opId, blockId);
      }
    };
    if (state.ops.has(state.root)) {
      addOp(state.root, null);
    }
    for (const [op, parts] of ops) {
      for (const edge of parts.uses) {
        if (edge !== null && nodes.has(edge.source)) {
          edges.set(edge.id, edge);
        }
      }
      if (op.block === null) {
        continue;
      }
      for (const edge of parts.branches) {
        if (nodes.has(edge.target)) {
          edges.set(edge.id, edge);
        }
      }
    }
    return { nodes, edges };
  }

  /** The node and edges of `op` drawn in `parent`: the ones built before if nothing they show changed. */
  private opParts(op: OpEntry, parent: string | null, names: ReadonlyMap<string, string>, state: IRState): OpParts {
    const name = op.results.length > 0 ? names.get(op.results[0]) : undefined;
    const kept = this.parts.get(op);
    if (kept !== undefined && kept.node.parent === parent && kept.name === name && this.sameSources(kept, op, state)) {
      return kept;
    }
    const boxed = op.regions.length > 0;
    const node: GraphNode = { id: op.id, kind: boxed ? 'box' : 'op', parent, label: boxed ? boxLabel(op) : opLabel(op, names), text: op.text };
    const uses = op.operands.map((valueId, index): GraphEdge | null => {
      const value = state.values.get(valueId);
      if (!value) {
        return null;
      }
      const id = `use:${valueId}>${op.id}#${index}`;
      return { id, kind: 'use', source: value.isArg ? valueId : value.owner, target: op.id, label: `%${valueId}` };
    });
    const branches = op.successors.map((blockId, index): GraphEdge => {
      const id = `br:${op.id}#${index}`;
      return { id, kind: 'branch', source: op.block ?? '', target: blockId, label: op.name };
    });
    const parts = { node, name, uses, branches };
    this.parts.set(op, parts);
    return parts;
  }

  /** Whether every operand of `op` is still defined where it was when `parts` was built. */
  private sameSources(parts: OpParts, op: OpEntry, state: IRState): boolean {
    return op.operands.every((valueId, index) => {
      const value = state.values.get(valueId);
      const edge = parts.uses[index];
      return value === undefined ? edge === null : edge !== null && edge.source === (value.isArg ? valueId : value.owner);
    });
  }
}

/** The graph of the IR in `state`, reachable from its root. */
export function buildGraph(state: IRState): GraphData {
  return new GraphBuilder().build(state);
}
