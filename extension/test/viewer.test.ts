/**
 * The whole viewer (`src/view/viewer.ts`) in jsdom on a small recorded trace:
 * built from the trace document, it draws a step's graph, IR, title and
 * dispatch graph; keys, the timeline and the IR pane move it and select; a
 * trace it cannot read shows why.  The canvas draws nothing and the graph's
 * canvas is given a size (`jsdom.ts`).
 */

import cytoscape from 'cytoscape';

import type { BlockInfo, HeaderRecord, OpInfo, Placement, TraceDocument } from '../src/schema';
import { TraceViewer, type ViewerOptions } from '../src/view/viewer';
import { escapeCss, sizeGraphCanvas, stubCanvas } from './jsdom';
import { FORM, regionTrace } from './regionfixture';

stubCanvas();
sizeGraphCanvas();
escapeCss();
cytoscape.warnings(false);

const viewers: TraceViewer[] = [];

afterEach(() => {
  for (const viewer of viewers.splice(0)) {
    viewer.dispose();
  }
  document.body.replaceChildren();
});

async function mount(options: ViewerOptions = {}): Promise<TraceViewer> {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const viewer = TraceViewer.mount(host, regionTrace(), options)!;
  viewers.push(viewer);
  await viewer.rendered;
  return viewer;
}

/** Press `key` on the viewer and wait for the step it shows to be drawn. */
async function press(viewer: TraceViewer, key: string): Promise<void> {
  viewer.node.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  viewer.node.dispatchEvent(new KeyboardEvent('keyup', { key, bubbles: true }));
  await viewer.rendered;
}

const title = (viewer: TraceViewer): string => viewer.node.querySelector('.pv-title')!.textContent ?? '';
const status = (viewer: TraceViewer): Record<string, string> =>
  Object.fromEntries(viewer.inspect().nodes.map(n => [n.id, n.status]));

test('opens on the initial IR: its graph, its IR and every step in the timeline', async () => {
  const viewer = await mount();
  expect(viewer.stepCount).toBe(6);
  expect(title(viewer)).toBe('initial IR · 6 steps');
  const seen = viewer.inspect();
  expect(seen.step).toBe(-1);
  expect(seen.visibleSteps).toEqual([-1, 0, 1, 2, 3, 4, 5]);
  expect(seen.nodes.map(n => [n.id, n.kind, n.label])).toEqual([
    ['o0', 'box', 'builtin.module'],
    ['b0', 'block', '^b0'],
    ['o1', 'box', 'util.func @f'],
    ['b1', 'block', '^b1'],
    ['v0', 'arg', '%x: tensor<4xf32>'],
    ['o2', 'op', '%mm = linalg.matmul'],
    ['o3', 'op', '%g = linalg.generic'],
    ['o4', 'op', 'util.return']
  ]);
  expect(seen.irText.split('\n').map(line => line.trim())).toContain('%mm = linalg.matmul %x, %x : tensor<4xf32>');
  expect(viewer.node.querySelectorAll('.pv-timeline .pv-step')).toHaveLength(7);
  expect(viewer.drawnNodes()).toHaveLength(8);
  expect((window as unknown as { passvizViewers: TraceViewer[] }).passvizViewers).toContain(viewer);
});

test('the arrow keys step through the trace: title, graph statuses and IR diff follow', async () => {
  const steps: number[] = [];
  const viewer = await mount({ onStep: step => steps.push(step) });
  await press(viewer, 'ArrowRight');
  await press(viewer, 'ArrowRight');
  expect(viewer.step).toBe(1);
  expect(title(viewer)).toBe(`step 1 of 5 · rewrite · ${FORM} · WrapInDispatchRegion: dispatch 0   +2 -0 ~1  moved 1  blocks+ 1`);
  expect(status(viewer)).toMatchObject({ o5: 'added', b2: 'added', o6: 'added', o3: 'moved', o4: 'modified', o2: 'unchanged' });
  const ir = viewer.inspect().irText.split('\n');
  expect(ir).toContain('+     %0 = flow.dispatch.region -> (tensor<4xf32>) {');
  expect(ir).toContain('↕       %g = linalg.generic %mm : tensor<4xf32>');
  expect(viewer.node.querySelector('.pv-timeline .pv-current')?.getAttribute('data-step')).toBe('1');
  await press(viewer, 'End');
  expect(viewer.step).toBe(5);
  await press(viewer, 'N'); // back to the last step that changed something
  expect(viewer.step).toBe(2);
  await press(viewer, 'Home');
  expect(viewer.step).toBe(-1);
  expect(steps).toEqual([0, 1, 5, 2, -1]);
});

test('a click on an IR line selects its op; t goes to the steps that touched it; a timeline row goes to its step', async () => {
  const selected: Array<string | null> = [];
  const viewer = await mount({ step: 5, onSelect: op => selected.push(op) });
  viewer.node.querySelector<HTMLElement>('.pv-line[data-op="o2"]')!.click();
  await viewer.rendered;
  expect(viewer.selectedOp).toBe('o2');
  expect(selected).toEqual(['o2']);
  expect(viewer.drawnNodes().find(n => n.id === 'o2')!.marks).toContain('selected');
  expect(viewer.node.querySelector('.pv-details')!.textContent).toContain('selected: o2 linalg.matmul');
  await press(viewer, 'T'); // back to the step that moved the matmul into the region
  expect(viewer.step).toBe(2);
  viewer.node.querySelector<HTMLElement>('.pv-timeline .pv-step[data-step="1"]')!.click();
  await viewer.rendered;
  expect(viewer.step).toBe(1);
  expect(viewer.selectedOp).toBe('o2');
});

test('D shows the dispatch graph of the step shown: the recorded region and the ops it computes', async () => {
  const viewer = await mount({ step: 2 });
  expect(viewer.inspect().dispatch.visible).toBe(false);
  await press(viewer, 'D');
  const shown = viewer.inspect().dispatch;
  expect(shown.available && shown.visible).toBe(true);
  expect(shown.nodes.filter(n => n.kind === 'dispatch').map(n => [n.id, n.members])).toEqual([['o5', ['o2', 'o3']]]);
  // A click on the region selects it in the viewer.
  viewer.node.querySelector('.pv-dispatch-pane g[data-id="o5"]')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  await viewer.rendered;
  expect(viewer.selectedOp).toBe('o5');
  expect(viewer.inspect().dispatch.selected).toBe('o5');
  await press(viewer, 'Home');
  expect(viewer.inspect().dispatch.nodes.filter(n => n.kind === 'dispatch')).toEqual([]);
  await press(viewer, 'D');
  expect(viewer.inspect().dispatch.visible).toBe(false);
});

test('a trace whose header records no dispatch vocabulary has no dispatch graph: no pane, no button, D does nothing', async () => {
  const document = regionTrace();
  const header = document.records[0] as HeaderRecord;
  delete header.meta.dispatch;
  const host = window.document.createElement('div');
  window.document.body.appendChild(host);
  const viewer = TraceViewer.mount(host, document, { step: 2 })!;
  viewers.push(viewer);
  await viewer.rendered;
  expect(viewer.node.querySelector('.pv-dispatch-pane')).toBeNull();
  expect([...viewer.node.querySelectorAll('.pv-toolbar button')].map(b => b.textContent)).not.toContain('dispatches');
  await press(viewer, 'D');
  expect(viewer.inspect().dispatch).toEqual({ available: false, visible: false, selected: null, nodes: [], edges: [] });
});

test('a big module opens as an overview, every function a collapsed box: ops with a function_type, whatever their name', async () => {
  // Three functions of a made-up dialect (`k.kernel`), 150 ops each: more graph nodes than the viewer draws open.
  const ops: OpInfo[] = [{ id: 'o0', name: 'builtin.module', operands: [], results: [], regions: ['r0'] }];
  const placed: Placement[] = [];
  const blocks: BlockInfo[] = [{ id: 'b0', args: [] }];
  const regionBlocks: Record<string, string[]> = { r0: ['b0'] };
  for (let f = 1; f <= 3; f++) {
    const fn = `o${f * 1000}`;
    ops.push({ id: fn, name: 'k.kernel', operands: [], results: [], regions: [`r${f}`], props: { sym_name: `"k${f}"`, function_type: '() -> ()' } });
    placed.push({ id: fn, block: 'b0', after: f === 1 ? null : `o${(f - 1) * 1000}` });
    blocks.push({ id: `b${f}`, args: [] });
    regionBlocks[`r${f}`] = [`b${f}`];
    for (let i = 1; i <= 150; i++) {
      ops.push({ id: `o${f * 1000 + i}`, name: 'k.op', operands: [], results: [{ id: `v${f * 1000 + i}`, type: 'i32' }] });
      placed.push({ id: `o${f * 1000 + i}`, block: `b${f}`, after: i === 1 ? null : `o${f * 1000 + i - 1}` });
    }
  }
  const trace: TraceDocument = {
    format: 'passviz-trace',
    version: 2,
    records: [
      {
        record: 'header',
        format: 'passviz-trace',
        version: 2,
        meta: { input: 'k.mlir', pipeline: 'test', passviz_version: '0.1.0', xdsl_version: '0.74.0', verify_each: 'pass' },
        initial: { root: 'o0', delta: { blocks_created: blocks, ops_created: ops, placed, region_blocks: regionBlocks } }
      },
      { record: 'end', status: 'ok', steps: 0 }
    ]
  };
  const host = window.document.createElement('div');
  window.document.body.appendChild(host);
  const viewer = TraceViewer.mount(host, trace)!;
  viewers.push(viewer);
  await viewer.rendered;
  const drawn = new Set(viewer.inspect().nodes.map(n => n.id));
  expect(['o1000', 'o2000', 'o3000'].every(id => drawn.has(id))).toBe(true);
  // Each function shows as its box alone, labelled with how much it holds.
  expect(drawn.has('o1001') || drawn.has('o2001') || drawn.has('o3001')).toBe(false);
  const boxes = viewer.inspect().nodes.filter(n => ['o1000', 'o2000', 'o3000'].includes(n.id));
  expect(boxes.every(n => n.label.includes('k.kernel') && /150|151/.test(n.label))).toBe(true);
});

test("a captured compile's text outputs (LLVM IR, PTX, SASS) show in the IR pane, until a step is drawn", async () => {
  const document = regionTrace();
  const header = document.records[0] as HeaderRecord;
  header.meta.imported = {
    dump: 'triton.compile of add_kernel',
    printing: 'before',
    outputs: [
      { stage: 'llir', text: 'define void @add_kernel() {\n  ret void\n}\n' },
      { stage: 'ptx', text: '.version 8.7\n.target sm_90a\n' }
    ]
  };
  const host = window.document.createElement('div');
  window.document.body.appendChild(host);
  const viewer = TraceViewer.mount(host, document, { step: 1 })!;
  viewers.push(viewer);
  await viewer.rendered;
  const buttons = [...viewer.node.querySelectorAll<HTMLButtonElement>('.pv-output')];
  expect(buttons.map(b => b.textContent)).toEqual(['llir', 'ptx']);
  buttons[1].click();
  expect(viewer.inspect().irText).toContain('.target sm_90a');
  expect(buttons[1].getAttribute('aria-pressed')).toBe('true');
  await press(viewer, 'ArrowRight');
  await new Promise(done => setTimeout(done, 1100));
  expect(viewer.inspect().irText).not.toContain('.target sm_90a');
  expect(buttons[1].getAttribute('aria-pressed')).toBe('false');
});

test('a trace with no text outputs shows no outputs row', async () => {
  const viewer = await mount();
  expect(viewer.node.querySelector<HTMLElement>('.pv-outputs')!.hidden).toBe(true);
});

test('the options choose the first step, the selection and the timeline filter', async () => {
  const viewer = await mount({ step: 2, selected: 'o3', filter: { changedOnly: true } });
  expect(viewer.step).toBe(2);
  expect(viewer.selectedOp).toBe('o3');
  expect(viewer.inspect().visibleSteps).toEqual([-1, 1, 2]);
  await press(viewer, 'ArrowLeft');
  expect(viewer.step).toBe(1);
  await press(viewer, 'ArrowLeft');
  expect(viewer.step).toBe(-1);
});

test('a trace that cannot be read shows why, as text, and makes no viewer', () => {
  const host = document.createElement('div');
  expect(TraceViewer.mount(host, { format: 'something-else', records: [] })).toBeNull();
  const error = host.querySelector('.pv-error')!;
  expect(error.getAttribute('role')).toBe('alert');
  expect(error.textContent).toMatch(/^passviz: /);
});
