/**
 * The graph pane (`src/view/graphview.ts`) in jsdom: Cytoscape draws a
 * step's graph of a small recorded trace, with each node's status and marks,
 * where the structural layout put it; edges follow the filter; a tap selects,
 * a double tap on a box collapses it.  The canvas draws nothing (`jsdom.ts`).
 */

import cytoscape from 'cytoscape';

import { diffGraphs, touchedBy, type DiffGraph } from '../src/model/diff';
import { buildGraph } from '../src/model/graph';
import { collapsedLabel, MAX_LEAF_WIDTH, nodeSize, StructureLayout, type Frame } from '../src/model/layout';
import { StateCursor, Trace } from '../src/model/trace';
import { GraphPane, type GraphMarks } from '../src/view/graphview';
import { GRAPH_SIZE, sizeGraphCanvas, stubCanvas } from './jsdom';
import { regionTrace } from './regionfixture';

stubCanvas();
sizeGraphCanvas();
// Cytoscape warns of edges between overlapping nodes (a box and what it holds): expected here.
cytoscape.warnings(false);

const trace = Trace.from(regionTrace());

/** Step `step`'s graph against the step before, laid out. */
function stepGraph(step: number, layout = new StructureLayout()): { graph: DiffGraph; frames: Map<string, Frame> } {
  const cursor = new StateCursor(trace);
  const before = buildGraph(cursor.at(Math.max(step - 1, -1)));
  const after = step < 0 ? before : buildGraph(cursor.at(step));
  const graph = diffGraphs(before, after, step < 0 ? new Set() : touchedBy(trace.steps[step].delta ?? {}));
  return { graph, frames: layout.frames(graph.nodes) };
}

const marks = (step: number, selected: string | null = null): GraphMarks => ({
  root: step >= 0 ? trace.steps[step].root ?? null : null,
  chain: step >= 0 ? trace.steps[step].chain ?? [] : [],
  selected
});

function pane(picked: string[] = [], toggled: string[] = []): GraphPane {
  const made = new GraphPane(id => picked.push(id), id => toggled.push(id));
  document.body.replaceChildren(made.node);
  return made;
}

/** The Cytoscape instance drawing into the pane (registered on its container). */
const core = (p: GraphPane): cytoscape.Core =>
  (p.node.querySelector('.pv-graph-canvas') as unknown as { _cyreg: { cy: cytoscape.Core } })._cyreg.cy;

test('a step is drawn node for node where the layout put it, with what the step did to each', async () => {
  const p = pane();
  const { graph, frames } = stepGraph(1);
  await p.render(graph, frames, marks(1), { use: true, branch: true }, ['o3', 'o5'], false);
  const drawn = new Map(p.drawn().map(n => [n.id, n]));
  expect([...drawn.keys()].sort()).toEqual(['b0', 'b1', 'b2', 'o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'v0']);
  for (const [id, node] of drawn) {
    expect([id, node.x, node.y]).toEqual([id, frames.get(id)!.x, frames.get(id)!.y]);
  }
  expect(drawn.get('o5')).toMatchObject({ kind: 'box', status: 'added', parent: 'b1', label: 'flow.dispatch.region' });
  expect(drawn.get('o3')).toMatchObject({ kind: 'op', status: 'modified', parent: 'b2', marks: ['root'] });
  expect(drawn.get('o2')).toMatchObject({ status: 'unchanged', label: '%mm = linalg.matmul' });
  // The return's old operand is an erased edge, its new one added.
  const edges = new Map(p.drawnEdges().map(e => [e.id, e]));
  expect(edges.get('use:v2>o4#0')?.status).toBe('erased');
  expect(edges.get('use:v3>o4#0')?.status).toBe('added');
  expect(p.sketched).toBe(false);
  // The camera shows the step's change: the region's box lies inside the pane.
  const region = p.inspectNodes().find(n => n.id === 'o5')!.box;
  expect(region.w).toBeGreaterThan(0);
  expect(region.x).toBeGreaterThanOrEqual(0);
  expect(region.y).toBeGreaterThanOrEqual(0);
  expect(region.x + region.w).toBeLessThanOrEqual(GRAPH_SIZE.width);
  expect(region.y + region.h).toBeLessThanOrEqual(GRAPH_SIZE.height);
  p.dispose();
});

test('the next step changes only what it changed, and the selection is marked', async () => {
  const p = pane();
  const layout = new StructureLayout();
  const first = stepGraph(1, layout);
  await p.render(first.graph, first.frames, marks(1), { use: true, branch: true }, [], false);
  const second = stepGraph(2, layout);
  await p.render(second.graph, second.frames, marks(2, 'o5'), { use: true, branch: true }, ['o2'], false);
  const drawn = new Map(p.drawn().map(n => [n.id, n]));
  expect(drawn.get('o2')).toMatchObject({ parent: 'b2', status: 'modified', marks: ['root'] });
  expect(drawn.get('o5')).toMatchObject({ status: 'unchanged', marks: ['selected'] });
  expect(drawn.get('o3')).toMatchObject({ status: 'unchanged', marks: [] });
  expect(p.drawnEdges().some(e => e.status === 'erased')).toBe(false);
  p.dispose();
});

test('the edge filter hides dataflow edges without taking them away', async () => {
  const p = pane();
  const { graph, frames } = stepGraph(-1);
  await p.render(graph, frames, marks(-1), { use: false, branch: true }, [], false);
  const edges = p.drawnEdges();
  expect(edges.map(e => e.id)).toEqual(['use:v0>o2#0', 'use:v0>o2#1', 'use:v1>o3#0', 'use:v2>o4#0']);
  expect(edges.every(e => e.hidden)).toBe(true);
  await p.render(graph, frames, marks(-1), { use: true, branch: true }, [], false);
  expect(p.drawnEdges().some(e => e.hidden)).toBe(false);
  p.dispose();
});

test('a tap on a node selects it; a double tap on a box asks to collapse it, not on an op', async () => {
  const picked: string[] = [];
  const toggled: string[] = [];
  const p = pane(picked, toggled);
  const { graph, frames } = stepGraph(2);
  await p.render(graph, frames, marks(2), { use: true, branch: true }, [], false);
  const cy = core(p);
  cy.getElementById('o2').emit('tap');
  cy.getElementById('o5').emit('dbltap');
  cy.getElementById('o2').emit('dbltap');
  expect(picked).toEqual(['o2']);
  expect(toggled).toEqual(['o5']);
  p.dispose();
});

test('a collapsed box is one node that says how much it hides', async () => {
  const p = pane();
  const layout = new StructureLayout();
  layout.collapsed.add('o5');
  const { graph, frames } = stepGraph(2, layout);
  await p.render(graph, frames, marks(2), { use: true, branch: true }, [], false);
  const drawn = new Map(p.drawn().map(n => [n.id, n]));
  expect(drawn.has('o2')).toBe(false);
  expect(drawn.has('b2')).toBe(false);
  expect(drawn.get('o5')!.label).toMatch(/^flow\.dispatch\.region {2}\(\+\d+\)$/);
  p.dispose();
});

test('a collapsed box too long for its width cuts its name, never the count of what it hides', () => {
  const name = 'tt.func @triton.language.standard.cdiv__i32__(1,)cconstexpr_128_';
  const label = collapsedLabel(name, 1234, MAX_LEAF_WIDTH);
  expect(label).toMatch(/^tt\.func @triton\.language.*… {2}\(\+1234\)$/);
  expect(label.length * 7 + 20).toBeLessThanOrEqual(MAX_LEAF_WIDTH);
  // A short name keeps all of it, and the box is laid out wide enough for name and count.
  expect(collapsedLabel('tt.func @f', 12, nodeSize({ kind: 'box', label: 'tt.func @f  (+12)' }).width)).toBe('tt.func @f  (+12)');
});
