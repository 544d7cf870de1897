/**
 * The IR at one step, rebuilt from the trace's deltas without parsing MLIR.
 *
 * This mirrors `passviz/trace/apply.py` (checked against it by the golden
 * fixtures of `tests/golden.py`): the header's `initial` delta creates
 * the module from nothing, and each step's delta is applied in the same order
 * the Python replayer applies it.  Entries are never mutated in place (an update
 * replaces the entry), so `clone()` is a cheap shallow copy and two steps can be
 * held side by side.
 */

import type { Delta, OpChange, OpInfo, Placement, ValueInfo } from '../schema';

/** An operation, its links as trace ids. */
export interface OpEntry {
  readonly id: string;
  readonly name: string;
  /** The block holding the op; null for the root or a detached op. */
  readonly block: string | null;
  readonly operands: readonly string[];
  readonly results: readonly string[];
  readonly successors: readonly string[];
  readonly regions: readonly string[];
  readonly attrs: Readonly<Record<string, string>>;
  readonly props: Readonly<Record<string, string>>;
  readonly loc: string | null;
  /** The op on one line, values named by id, nested regions as `{...}`. */
  readonly text: string;
}

export interface BlockEntry {
  readonly id: string;
  readonly region: string | null;
  readonly args: readonly string[];
  readonly name: string | null;
  readonly ops: readonly string[];
}

export interface RegionEntry {
  readonly id: string;
  readonly op: string | null;
  readonly blocks: readonly string[];
}

export interface ValueEntry {
  readonly id: string;
  readonly type: string;
  readonly name: string | null;
  /** The op (a result) or block (an argument) defining the value. */
  readonly owner: string;
  readonly index: number;
  readonly isArg: boolean;
}

/** A delta that does not apply to the state it claims to follow. */
export class ReplayError extends Error {}

export class IRState {
  constructor(
    /** The id of the top-level op. */
    readonly root: string,
    readonly ops: Map<string, OpEntry> = new Map(),
    readonly blocks: Map<string, BlockEntry> = new Map(),
    readonly regions: Map<string, RegionEntry> = new Map(),
    readonly values: Map<string, ValueEntry> = new Map()
  ) {}

  /** A copy that later `apply` calls on either side do not affect. */
  clone(): IRState {
    return new IRState(
      this.root,
      new Map(this.ops),
      new Map(this.blocks),
      new Map(this.regions),
      new Map(this.values)
    );
  }

  /** The enclosing op/region/block ids of a node, outermost first. */
  parents(id: string): string[] {
    const chain: string[] = [];
    let current = this.parentOf(id);
    while (current !== null) {
      chain.push(current);
      current = this.parentOf(current);
    }
    return chain.reverse();
  }

  /** The direct parent of an op, block, region or value. */
  parentOf(id: string): string | null {
    const op = this.ops.get(id);
    if (op) {
      return op.block;
    }
    const block = this.blocks.get(id);
    if (block) {
      return block.region;
    }
    const region = this.regions.get(id);
    if (region) {
      return region.op;
    }
    const value = this.values.get(id);
    if (value) {
      return value.isArg ? value.owner : this.parentOf(value.owner);
    }
    return null;
  }

  /** Every op reachable from the root, in IR pre-order. */
  walkOps(): string[] {
    const order: string[] = [];
    const visit = (opId: string): void => {
      order.push(opId);
      for (const regionId of this.op(opId).regions) {
        for (const blockId of this.regions.get(regionId)?.blocks ?? []) {
          for (const child of this.blocks.get(blockId)?.ops ?? []) {
            visit(child);
          }
        }
      }
    };
    if (this.ops.has(this.root)) {
      visit(this.root);
    }
    return order;
  }

  op(id: string): OpEntry {
    const op = this.ops.get(id);
    if (!op) {
      throw new ReplayError(`unknown op ${id}`);
    }
    return op;
  }

  block(id: string): BlockEntry {
    const block = this.blocks.get(id);
    if (!block) {
      throw new ReplayError(`unknown block ${id}`);
    }
    return block;
  }

  /** Apply one step's delta, in the order passviz's Python replayer applies it. */
  apply(delta: Delta): void {
    for (const info of delta.blocks_created ?? []) {
      this.createBlock(info.id, info.args, info.name ?? null);
    }
    const created = delta.ops_created ?? [];
    for (const info of created) {
      this.createOp(info);
    }
    const modified = delta.ops_modified ?? [];
    for (const change of modified) {
      if (change.results) {
        this.setResults(change.id, change.results);
      }
    }
    for (const [blockId, args] of Object.entries(delta.block_args ?? {})) {
      this.setBlockArgs(blockId, args);
    }
    for (const info of created) {
      this.checkValues(info.operands);
    }
    for (const change of modified) {
      this.modifyOp(change);
    }
    this.place(delta.placed ?? []);
    for (const [regionId, blockIds] of Object.entries(delta.region_blocks ?? {})) {
      this.setRegionBlocks(regionId, blockIds);
    }
    // Erased last, as `passviz/trace/apply.py` does: an erased op's regions may
    // have held blocks that now live elsewhere (an inlined scf.execute_region).
    for (const opId of delta.ops_erased ?? []) {
      this.eraseOp(opId);
    }
    for (const blockId of delta.blocks_erased ?? []) {
      this.eraseBlock(blockId);
    }
    for (const [blockId, name] of Object.entries(delta.block_names ?? {})) {
      this.blocks.set(blockId, { ...this.block(blockId), name });
    }
    for (const [opId, text] of Object.entries(delta.texts ?? {})) {
      const op = this.ops.get(opId);
      if (op) {
        this.ops.set(opId, { ...op, text });
      }
    }
  }

  private checkValues(ids: readonly string[]): void {
    for (const id of ids) {
      if (!this.values.has(id)) {
        throw new ReplayError(`unknown value ${id}`);
      }
    }
  }

  private register(info: ValueInfo, owner: string, index: number, isArg: boolean): void {
    this.values.set(info.id, {
      id: info.id,
      type: info.type,
      name: info.name ?? null,
      owner,
      index,
      isArg
    });
  }

  private createBlock(id: string, args: ValueInfo[], name: string | null): void {
    this.blocks.set(id, { id, region: null, args: args.map(a => a.id), name, ops: [] });
    args.forEach((arg, index) => this.register(arg, id, index, true));
  }

  /** Take a region for `opId`, detaching it from the op that held it before. */
  private claimRegion(regionId: string, opId: string): void {
    const region = this.regions.get(regionId);
    if (region && region.op !== null && region.op !== opId) {
      const holder = this.ops.get(region.op);
      if (holder) {
        this.ops.set(holder.id, {
          ...holder,
          regions: holder.regions.filter(r => r !== regionId)
        });
      }
    }
    this.regions.set(regionId, { id: regionId, op: opId, blocks: region?.blocks ?? [] });
  }

  private createOp(info: OpInfo): void {
    const regions = info.regions ?? [];
    this.ops.set(info.id, {
      id: info.id,
      name: info.name,
      block: null,
      operands: info.operands,
      results: info.results.map(r => r.id),
      successors: info.successors ?? [],
      regions,
      attrs: info.attrs ?? {},
      props: info.props ?? {},
      loc: info.loc ?? null,
      text: info.name
    });
    for (const regionId of regions) {
      this.claimRegion(regionId, info.id);
    }
    info.results.forEach((result, index) => this.register(result, info.id, index, false));
  }

  private forget(valueId: string): void {
    this.values.delete(valueId);
  }

  private setResults(opId: string, infos: ValueInfo[]): void {
    const op = this.op(opId);
    const keep = new Set(infos.map(i => i.id));
    for (const old of op.results) {
      if (!keep.has(old)) {
        this.forget(old);
      }
    }
    infos.forEach((info, index) => this.register(info, opId, index, false));
    this.ops.set(opId, { ...op, results: infos.map(i => i.id) });
  }

  private setBlockArgs(blockId: string, infos: ValueInfo[]): void {
    const block = this.block(blockId);
    const keep = new Set(infos.map(i => i.id));
    for (const old of block.args) {
      if (!keep.has(old)) {
        this.forget(old);
      }
    }
    infos.forEach((info, index) => this.register(info, blockId, index, true));
    this.blocks.set(blockId, { ...block, args: infos.map(i => i.id) });
  }

  private modifyOp(change: OpChange): void {
    let op = this.op(change.id);
    if (change.operands) {
      this.checkValues(change.operands);
      op = { ...op, operands: change.operands };
    }
    if (change.successors) {
      op = { ...op, successors: change.successors };
    }
    if (change.attrs) {
      op = { ...op, attrs: change.attrs };
    }
    if (change.props) {
      op = { ...op, props: change.props };
    }
    if (change.loc !== undefined) {
      op = { ...op, loc: change.loc };
    }
    if (change.regions) {
      const keep = new Set(change.regions.filter(r => this.regions.has(r)));
      for (const regionId of op.regions) {
        if (!keep.has(regionId)) {
          const region = this.regions.get(regionId);
          if (region) {
            this.regions.set(regionId, { ...region, op: null });
          }
        }
      }
      op = { ...op, regions: op.regions.filter(r => keep.has(r)) };
    }
    this.ops.set(op.id, op);
  }

  private detachOp(opId: string): void {
    const op = this.op(opId);
    if (op.block === null) {
      return;
    }
    const block = this.blocks.get(op.block);
    if (block) {
      this.blocks.set(block.id, { ...block, ops: block.ops.filter(o => o !== opId) });
    }
    this.ops.set(opId, { ...op, block: null });
  }

  private eraseOp(opId: string): void {
    if (!this.ops.has(opId)) {
      throw new ReplayError(`cannot erase unknown op ${opId}`);
    }
    this.detachOp(opId);
    for (const result of this.op(opId).results) {
      this.forget(result);
    }
    this.ops.delete(opId);
  }

  private place(placements: Placement[]): void {
    const pending = new Map(placements.map(p => [p.id, p]));
    for (const opId of pending.keys()) {
      this.detachOp(opId);
    }
    const waiting = new Map<string, Placement[]>();
    const ready: Placement[] = [];
    for (const placement of placements) {
      const after = placement.after;
      if (after !== null && pending.has(after)) {
        waiting.set(after, [...(waiting.get(after) ?? []), placement]);
      } else {
        ready.push(placement);
      }
    }
    // Each block's ops as a linked list while ops go in (key: an op, or null for
    // the block's start; value: the op after it), so that placing all ops of a
    // big block costs linear time rather than a copy of the block per op.
    const lists = new Map<string, Map<string | null, string | null>>();
    let placed = 0;
    while (ready.length > 0) {
      const placement = ready.pop()!;
      this.insert(placement, lists);
      placed += 1;
      ready.push(...(waiting.get(placement.id) ?? []));
      waiting.delete(placement.id);
    }
    for (const [blockId, next] of lists) {
      const ops: string[] = [];
      for (let op = next.get(null) ?? null; op !== null; op = next.get(op) ?? null) {
        ops.push(op);
      }
      this.blocks.set(blockId, { ...this.block(blockId), ops });
    }
    if (placed !== placements.length) {
      throw new ReplayError('placements refer to each other in a cycle');
    }
  }

  /** Put an op in its block, right after the op it follows (`lists`: the blocks' ops being placed). */
  private insert(placement: Placement, lists: Map<string, Map<string | null, string | null>>): void {
    const block = this.block(placement.block);
    const op = this.op(placement.id);
    let next = lists.get(block.id);
    if (next === undefined) {
      next = new Map<string | null, string | null>();
      let previous: string | null = null;
      for (const id of block.ops) {
        next.set(previous, id);
        previous = id;
      }
      next.set(previous, null);
      lists.set(block.id, next);
    }
    const after = placement.after;
    if (after !== null && !next.has(after)) {
      throw new ReplayError(`op ${placement.id} is placed after ${after}, which is not in ${placement.block}`);
    }
    next.set(op.id, next.get(after) ?? null);
    next.set(after, op.id);
    this.ops.set(op.id, { ...op, block: block.id });
  }

  private setRegionBlocks(regionId: string, blockIds: string[]): void {
    const region = this.regions.get(regionId) ?? { id: regionId, op: null, blocks: [] };
    for (const old of region.blocks) {
      const block = this.blocks.get(old);
      if (block && block.region === regionId) {
        this.blocks.set(old, { ...block, region: null });
      }
    }
    for (const blockId of blockIds) {
      const block = this.block(blockId);
      if (block.region !== null && block.region !== regionId) {
        const other = this.regions.get(block.region);
        if (other) {
          this.regions.set(other.id, { ...other, blocks: other.blocks.filter(b => b !== blockId) });
        }
      }
      this.blocks.set(blockId, { ...block, region: regionId });
    }
    this.regions.set(regionId, { ...region, blocks: blockIds });
  }

  private eraseBlock(blockId: string): void {
    const block = this.blocks.get(blockId);
    if (!block) {
      throw new ReplayError(`cannot erase unknown block ${blockId}`);
    }
    for (const arg of block.args) {
      this.forget(arg);
    }
    if (block.region !== null) {
      const region = this.regions.get(block.region);
      if (region) {
        this.regions.set(region.id, { ...region, blocks: region.blocks.filter(b => b !== blockId) });
      }
    }
    this.blocks.delete(blockId);
  }
}
