/**
 * Each step's graph with statuses, and where its nodes are drawn: the model
 * work behind a step, apart from any page, so that a worker thread can do it
 * ahead of time while the page paints (`ahead.ts`).
 */

import { diffGraphs, movedBy, touchedBy, UnchangedCache, type DiffGraph } from './diff';
import { GraphBuilder, type GraphData } from './graph';
import { StructureLayout, type Frame, type LayoutMemory } from './layout';
import type { IRState } from './state';
import { StateCursor, type Trace } from './trace';

/** A small cache of per-step values, most recent last. */
export class StepCache<T> {
  private readonly map = new Map<number, T>();
  constructor(private readonly size: number) {}
  /** The value of `step` if it is kept (then the most recent), else undefined. */
  cached(step: number): T | undefined {
    const hit = this.map.get(step);
    if (hit !== undefined) {
      this.map.delete(step);
      this.map.set(step, hit);
    }
    return hit;
  }

  get(step: number, make: () => T): T {
    const hit = this.cached(step);
    if (hit !== undefined) {
      return hit;
    }
    return this.set(step, make());
  }

  /** Keep `value` as `step`'s (made elsewhere: in a worker). */
  set(step: number, value: T): T {
    this.map.delete(step);
    this.map.set(step, value);
    if (this.map.size > this.size) {
      this.map.delete(this.map.keys().next().value!);
    }
    return value;
  }
}

/**
 * The graphs of a trace's steps.  Graphs built by one model share the node
 * objects of what a step did not change, and so do their diffs.
 */
export class StepModel {
  private readonly graphs = new StepCache<GraphData>(6);
  private readonly builder = new GraphBuilder();
  private readonly unchanged = new UnchangedCache();
  /** Each step's graph with statuses (against the step before). */
  readonly diffs = new StepCache<DiffGraph>(6);

  constructor(
    readonly trace: Trace,
    readonly cursor: StateCursor = new StateCursor(trace)
  ) {}

  /** The graph of the state after `step`. */
  graph(step: number, state: IRState): GraphData {
    return this.graphs.get(step, () => this.builder.build(state));
  }

  /** The graph of `step` with statuses against the step before (`before` and `after`: the states around it). */
  diff(step: number, before: IRState, after: IRState): DiffGraph {
    return this.diffs.get(step, () => {
      const record = step >= 0 ? this.trace.steps[step] : null;
      const graphBefore = this.graph(step - 1, before);
      const graphAfter = step < 0 ? graphBefore : this.graph(step, after);
      const delta = record?.delta ?? {};
      return diffGraphs(graphBefore, graphAfter, record ? touchedBy(delta) : new Set(), this.unchanged, movedBy(delta));
    });
  }

  /** `diff` at `step`, with the states the model's own cursor replays. */
  diffAt(step: number): DiffGraph {
    const cached = this.diffs.cached(step);
    if (cached !== undefined) {
      return cached;
    }
    const [before, after] = this.cursor.around(step);
    return this.diff(step, before, after);
  }
}

/** A request to lay out one step ahead, with the memory of the layout that will draw it. */
export interface AheadRequest {
  id: number;
  step: number;
  memory: LayoutMemory;
}

/** A step laid out ahead: its graph, its frames and the layout's memory after them. */
export interface AheadResult {
  id: number;
  step: number;
  diff: DiffGraph;
  frames: Map<string, Frame>;
  memory: LayoutMemory;
}

/** The answer to an `AheadRequest` that could not be laid out (the page draws the step itself). */
export interface AheadFailure {
  id: number;
  step: number;
  error: string;
}

/**
 * Build and lay out `request.step` with `model`; `leaves` is a layout whose laid-out
 * leaves are kept from request to request (the model's graphs share node objects).
 */
export function layAhead(model: StepModel, leaves: StructureLayout, request: AheadRequest): AheadResult | AheadFailure {
  try {
    const diff = model.diffAt(request.step);
    const layout = leaves.withMemory(request.memory);
    const frames = layout.frames(diff.nodes);
    return { id: request.id, step: request.step, diff, frames, memory: layout.memory() };
  } catch (error) {
    return { id: request.id, step: request.step, error: error instanceof Error ? error.message : String(error) };
  }
}
