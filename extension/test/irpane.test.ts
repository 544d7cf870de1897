/**
 * The IR pane (`src/view/irpane.ts`) in jsdom, on the IR of a small recorded
 * trace: the lines a step shows against the step before, values by their
 * source names, a click selecting an op, side by side, and a long module
 * shown as its changed hunks until opened whole.
 */

import { diffLines, irLines, printedNames, type DiffLine, type PrintedNames } from '../src/model/irtext';
import { StateCursor, Trace } from '../src/model/trace';
import { FULL_LIMIT, IRPane, type CompareBase } from '../src/view/irpane';
import { escapeCss } from './jsdom';
import { regionTrace } from './regionfixture';

escapeCss();

/** The lines of step `step` against the step before, and the printed names of both states. */
function stepLines(step: number): { lines: DiffLine[]; names: PrintedNames } {
  const cursor = new StateCursor(Trace.from(regionTrace()));
  const before = cursor.at(step - 1).clone();
  const after = cursor.at(step);
  const names = printedNames(before, irLines(before));
  const shown = printedNames(after, irLines(after));
  shown.values.forEach((name, id) => names.values.set(id, name));
  shown.blocks.forEach((name, id) => names.blocks.set(id, name));
  return { lines: diffLines(irLines(before), irLines(after)), names };
}

function pane(onSelect: (op: string) => void = () => undefined, onBase: (base: CompareBase) => void = () => undefined): IRPane {
  const made = new IRPane(onSelect, onBase);
  document.body.replaceChildren(made.node);
  return made;
}

const lineOf = (p: IRPane, op: string): HTMLElement[] => [...p.node.querySelectorAll<HTMLElement>(`.pv-line[data-op="${op}"]`)];

test('a step shows its IR against the step before: added, erased and moved lines marked, values and blocks named as the CLI prints them', () => {
  const p = pane();
  const { lines, names } = stepLines(1);
  p.render(lines, 'IR after step 1, against the step before', names);
  expect(p.node.querySelector('.pv-pane-name')!.textContent).toBe('IR after step 1, against the step before');
  expect(p.plainText().split('\n')).toEqual([
    '  "builtin.module"() ({',
    '    util.func @f(%x : tensor<4xf32>) -> tensor<4xf32> {',
    '    ^bb0(%x: tensor<4xf32>):',
    '      %mm = linalg.matmul %x, %x : tensor<4xf32>',
    '-     util.return %g : tensor<4xf32>',
    '+     %0 = flow.dispatch.region -> (tensor<4xf32>) {',
    '↕       %g = linalg.generic %mm : tensor<4xf32>',
    '+       flow.return %g : tensor<4xf32>',
    '+     }',
    '+     util.return %0 : tensor<4xf32>',
    '    }',
    '  }) : () -> ()'
  ]);
  // Each line keeps its op and its status; the generic moved into the region.
  expect(lineOf(p, 'o3').map(l => l.className)).toEqual(['pv-line pv-line-moved']);
  expect(lineOf(p, 'o5')[0].className).toBe('pv-line pv-line-added');
  expect(lineOf(p, 'o4').map(l => l.className)).toEqual(['pv-line pv-line-erased', 'pv-line pv-line-added']);
  // A value shows its source name, its id on hover.
  const value = lineOf(p, 'o2')[0].querySelector<HTMLElement>('.pv-value')!;
  expect([value.textContent, value.title]).toEqual(['%mm', '%v1']);
});

test('in a line that replaced another, the words that changed are marked (values by name)', () => {
  const p = pane();
  const lines: DiffLine[] = [
    { text: 'util.return %v2 : tensor<4xf32>', op: 'o4', status: 'erased' },
    { text: 'util.return %v3 : tensor<4xf32>', op: 'o4', status: 'added' }
  ];
  p.render(lines, 'IR', { values: new Map([['v2', 'g'], ['v3', 'out']]), blocks: new Map() });
  const marked = lineOf(p, 'o4').map(l => [...l.querySelectorAll('.pv-word-changed')].map(w => w.textContent));
  expect(marked).toEqual([['g'], ['out']]);
  expect(p.plainText()).toBe('- util.return %g : tensor<4xf32>\n+ util.return %out : tensor<4xf32>');
});

test('a click on a line selects its op, and the selected op\'s lines are highlighted', () => {
  const picked: string[] = [];
  const p = pane(op => picked.push(op));
  const { lines, names } = stepLines(2);
  p.render(lines, 'IR after step 2', names);
  lineOf(p, 'o2')[0].click();
  p.node.querySelector<HTMLElement>('.pv-line:not([data-op])')?.click(); // a line without an op selects nothing
  expect(picked).toEqual(['o2']);
  p.select('o5');
  expect([...p.node.querySelectorAll('.pv-line-selected')].map(l => (l as HTMLElement).dataset.op)).toEqual(['o5', 'o5']);
  p.select(null);
  expect(p.node.querySelectorAll('.pv-line-selected')).toHaveLength(0);
});

test('side by side, erased lines stand left of the lines that replaced them; the base choice is reported', () => {
  const bases: CompareBase[] = [];
  const p = pane(() => undefined, base => bases.push(base));
  const { lines, names } = stepLines(1);
  p.render(lines, 'IR after step 1', names);
  const sideBySide = p.node.querySelector<HTMLInputElement>('input[aria-label="side by side"]')!;
  sideBySide.checked = true;
  sideBySide.dispatchEvent(new Event('change'));
  const rows = [...p.node.querySelectorAll('.pv-row')].map(row => [...row.children].map(c => c.className.replace('pv-line pv-line-', '')));
  expect(rows).toContainEqual(['erased', 'added']);
  expect(rows.filter(r => r[0] === 'unchanged')).toHaveLength(6);
  const choice = p.node.querySelector<HTMLSelectElement>('select.pv-compare')!;
  expect([...choice.options].map(o => o.value)).toEqual(['step', 'pass', 'initial']);
  choice.value = 'initial';
  choice.dispatchEvent(new Event('change'));
  expect(bases).toEqual(['initial']);
  expect(p.base).toBe('initial');
});

test('a long module shows its changed lines with context until it is opened whole', () => {
  const p = pane();
  const lines: DiffLine[] = Array.from({ length: FULL_LIMIT + 100 }, (_, i) => ({ text: `op ${i}`, op: `o${i}`, status: 'unchanged' }));
  lines[500] = { text: 'op 500 changed', op: 'o500', status: 'added' };
  p.render(lines, 'long');
  const shown = p.plainText().split('\n');
  expect(shown).toEqual([
    '… 496 unchanged lines (click to show the whole module) …',
    ...[496, 497, 498, 499].map(i => `  op ${i}`),
    '+ op 500 changed',
    ...[501, 502, 503, 504].map(i => `  op ${i}`),
    `… ${FULL_LIMIT + 100 - 505} unchanged lines (click to show the whole module) …`
  ]);
  p.node.querySelector<HTMLElement>('.pv-ir-more')!.click();
  expect(p.node.querySelectorAll('.pv-line')).toHaveLength(FULL_LIMIT + 100);
});

test('trace text is shown as text, never as markup', () => {
  const p = pane();
  p.render([{ text: '"x.op"() {note = "<img src=x onerror=alert(1)>"}', op: 'o1', status: 'added' }], '<b>title</b>');
  expect(p.node.querySelector('img, b')).toBeNull();
  expect(p.plainText()).toBe('+ "x.op"() {note = "<img src=x onerror=alert(1)>"}');
});
