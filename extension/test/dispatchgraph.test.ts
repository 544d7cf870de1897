/**
 * The dispatch graph pane (`src/view/dispatchgraph.ts`) in jsdom, on a small
 * trace that forms a dispatch region and records it (`Step.dispatch`): the
 * pane follows the step, draws the region as one node holding the ops it
 * computes, marks what the step did to it, and a click selects.
 */

import { StateCursor, Trace } from '../src/model/trace';
import { DispatchPane } from '../src/view/dispatchgraph';
import { IREE_DISPATCH, regionTrace } from './regionfixture';

const trace = Trace.from(regionTrace());

function pane(picked: string[] = []): { pane: DispatchPane; show: (step: number) => void } {
  const cursor = new StateCursor(trace);
  const made = new DispatchPane(id => picked.push(id), step => cursor.at(step), IREE_DISPATCH);
  document.body.replaceChildren(made.node);
  // As the viewer does: the states around the step, the one before taken first.
  const show = (step: number): void => {
    const before = cursor.at(Math.max(step - 1, -1)).clone();
    made.update(step, cursor.at(step), null, before);
  };
  return { pane: made, show };
}

const kinds = (p: DispatchPane): Array<[string, string]> => p.inspect().nodes.map(n => [n.id, n.kind]);
const group = (p: DispatchPane, id: string): SVGGElement => p.node.querySelector<SVGGElement>(`g[data-id="${id}"]`)!;
const texts = (g: Element): string[] => [...g.querySelectorAll('text')].map(t => t.textContent ?? '');

test('hidden until asked for; then the function, its argument, its ops and its return', () => {
  const { pane: p, show } = pane();
  show(-1);
  expect(p.visible).toBe(false);
  expect(p.node.style.display).toBe('none');
  expect(p.node.querySelector('svg')).toBeNull();
  p.toggle();
  expect(p.node.style.display).toBe('flex');
  expect(p.node.textContent).toContain('dispatch graph: 0 dispatches');
  expect(kinds(p)).toEqual([['o1', 'func'], ['v0', 'arg'], ['o2', 'op'], ['o3', 'op'], ['o4', 'return']]);
  expect(p.inspect().edges.map(e => [e.source, e.target, e.label])).toEqual([
    ['v0', 'o2', 'tensor<4xf32>'],
    ['o2', 'o3', 'tensor<4xf32>'],
    ['o3', 'o4', 'tensor<4xf32>']
  ]);
  expect(texts(group(p, 'o1'))).toEqual(['util.func @f']);
  expect(group(p, 'o2').getAttribute('data-kind')).toBe('op');
  p.toggle();
  expect(p.visible).toBe(false);
});

test('the region a step wraps is one node, added, holding the op it computes, between the tensors it reads and writes', () => {
  const { pane: p, show } = pane();
  p.toggle();
  show(1);
  expect(p.node.textContent).toContain('dispatch graph: 1 dispatch');
  expect(kinds(p)).toEqual([['o1', 'func'], ['v0', 'arg'], ['o2', 'op'], ['o5', 'dispatch'], ['o4', 'return']]);
  const region = p.inspect().nodes.find(n => n.id === 'o5')!;
  expect(region).toMatchObject({ label: 'flow.dispatch.region #0', members: ['o3'], status: 'added', parent: 'o1' });
  expect(texts(group(p, 'o5'))).toEqual(['flow.dispatch.region #0', '  linalg.generic']);
  expect(p.inspect().edges.map(e => [e.source, e.target])).toEqual([['v0', 'o2'], ['o2', 'o5'], ['o5', 'o4']]);
});

test('an op joining the region leaves the graph, and the region is marked changed; later steps keep it', () => {
  const { pane: p, show } = pane();
  p.toggle();
  show(2);
  expect(kinds(p)).toEqual([['o1', 'func'], ['v0', 'arg'], ['o5', 'dispatch'], ['o4', 'return']]);
  expect(p.inspect().nodes.find(n => n.id === 'o5')).toMatchObject({ members: ['o2', 'o3'], status: 'modified' });
  expect(texts(group(p, 'o5'))).toEqual(['flow.dispatch.region #0', '  linalg.matmul', '  linalg.generic']);
  // The region now reads the argument itself.
  expect(p.inspect().edges.map(e => [e.source, e.target])).toEqual([['v0', 'o5'], ['o5', 'o4']]);
  show(5);
  expect(p.inspect().nodes.find(n => n.id === 'o5')).toMatchObject({ members: ['o2', 'o3'], status: 'unchanged' });
});

test('a graph asked for while hidden is the current step\'s; a click on a node selects its op', () => {
  const picked: string[] = [];
  const { pane: p, show } = pane(picked);
  show(2);
  expect(p.current()!.nodes.get('o5')?.members).toEqual(['o2', 'o3']);
  p.toggle();
  group(p, 'o5').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  group(p, 'v0').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  expect(picked).toEqual(['o5', 'v0']);
});
