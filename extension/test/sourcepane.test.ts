/**
 * The source pane on a trace that carries its kernel's source: the selected
 * op's line is highlighted, and a click on a line selects the ops located
 * there, one after the other.
 */

import { SourcePane, sourceLine } from '../src/view/sourcepane';
import { StateCursor, Trace } from '../src/model/trace';
import { header, steps } from './fixture';

const SOURCE = 'def f(a):\n    b = a + a\n    return b\n';

function trace(): Trace {
  const head = header();
  head.sources = { 'f.mlir': SOURCE };
  return new Trace([head, ...steps()]);
}

test('a location names its file and line, inside fused and call-site locations too', () => {
  expect(sourceLine('loc("f.mlir":3:5)')).toEqual({ file: 'f.mlir', line: 3 });
  expect(sourceLine('loc(callsite("k.py":12:8 at "k.py":40:2))')).toEqual({ file: 'k.py', line: 12 });
  // a library's callee first, the kernel's call second: the kernel's line when asked for
  const call = 'loc(callsite("standard.py":293:11 at "kernel.py":11:8))';
  expect(sourceLine(call)).toEqual({ file: 'standard.py', line: 293 });
  expect(sourceLine(call, 'kernel.py')).toEqual({ file: 'kernel.py', line: 11 });
  expect(sourceLine('loc(unknown)')).toBeNull();
  expect(sourceLine(null)).toBeNull();
});

test('the selected op\'s line is highlighted; clicking a line selects its ops', () => {
  const t = trace();
  const picked: string[] = [];
  const pane = new SourcePane(t.header.sources ?? {}, op => picked.push(op));
  document.body.appendChild(pane.node);
  const state = new StateCursor(t).at(-1);
  pane.show(state, 'o2'); // arith.addi at f.mlir:3
  expect(pane.node.hidden).toBe(false);
  const current = pane.node.querySelector('.pv-source-current');
  expect(current?.getAttribute('data-line')).toBe('3');
  expect(current?.textContent).toBe('3    return b');
  pane.node.querySelector<HTMLElement>('[data-line="3"]')!.click();
  expect(picked).toEqual(['o2']);
  pane.node.querySelector<HTMLElement>('[data-line="1"]')!.click(); // no op there
  expect(picked).toEqual(['o2']);
  pane.dispose();
});

test('the pane names every file the trace carries, and shows the one picked', () => {
  const sources = { '/home/u/kernel.py': 'k = 1\n', '/home/u/lib/helpers.py': 'h = 2\n' };
  const pane = new SourcePane(sources, () => undefined);
  document.body.appendChild(pane.node);
  pane.show(new StateCursor(trace()).at(-1), null);
  const files = pane.node.querySelector('.pv-source-files')!;
  expect(files.textContent).toBe('this trace carries 2 source files:kernel.pyhelpers.py');
  const buttons = [...files.querySelectorAll<HTMLElement>('[data-file]')];
  expect(buttons.map(b => b.title)).toEqual(Object.keys(sources));
  expect(buttons.map(b => b.getAttribute('aria-pressed'))).toEqual(['true', 'false']);
  buttons[1].click();
  expect(pane.node.querySelector('.pv-pane-title')!.textContent).toBe('source: /home/u/lib/helpers.py');
  expect(pane.node.querySelector('.pv-source-line')!.textContent).toBe('1h = 2');
  expect(buttons.map(b => b.getAttribute('aria-pressed'))).toEqual(['false', 'true']);
  pane.dispose();
});

test('a file name is shown as text, never as markup', () => {
  const name = '<img src=x onerror="window.pwned=1">.py';
  const pane = new SourcePane({ [name]: '' }, () => undefined);
  expect(pane.node.querySelector('img')).toBeNull();
  expect(pane.node.querySelector('[data-file]')!.textContent).toBe(name);
});

test('a trace without sources has no source pane', () => {
  const pane = new SourcePane({}, () => undefined);
  expect(pane.node.hidden).toBe(true);
});
