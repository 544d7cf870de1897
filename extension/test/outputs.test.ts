/**
 * The compile outputs row: a stage's output is a button; LLVM's passes (`passviz triton
 * --llvm-passes`) are folded groups of buttons named by the pass, and each one's lines are
 * marked against the IR the pass was given.
 */

import type { StageOutput } from '../src/schema';
import { diffBase, llvmPass, outputDiff, OutputsPane } from '../src/view/outputs';

const OUTPUTS: StageOutput[] = [
  { stage: 'llvm: Annotation2MetadataPass', text: 'define void @k() {\n  %1 = add i32 0, 1\n  ret void\n}\n' },
  { stage: 'llvm: InstCombinePass', text: 'define void @k() {\n  ret void\n}\n' },
  { stage: 'llvm: RequireAnalysisPass<llvm::GlobalsAA, llvm::Module>', text: 'define void @k() {\n  ret void\n}\n' },
  { stage: 'llir', text: 'define void @k() {\n  ret void\n}\n' },
  { stage: 'llvm: CodeGenPrepare (codegenprepare)', text: 'define void @k() {\n  ret void ; prepared\n}\n' },
  { stage: 'llvm mir: NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel)', text: 'bb.0:\n  Return\n' },
  { stage: 'llvm mir: Register Coalescer (register-coalescer)', text: 'bb.0:\n  Return ; coalesced\n' },
  { stage: 'ptx', text: '.version 8.7\n' },
  { stage: 'sass', text: 'Function:k\n' }
];

test('an LLVM pass output names its kind and its pass; a stage output is none', () => {
  expect(llvmPass('llvm: InstCombinePass')).toEqual({ kind: 'llvm', pass: 'InstCombinePass' });
  expect(llvmPass('llvm mir: Register Coalescer (register-coalescer)')).toEqual({
    kind: 'llvm mir',
    pass: 'Register Coalescer (register-coalescer)'
  });
  expect(llvmPass('llir')).toBeNull();
  expect(llvmPass('ptx')).toBeNull();
});

test("each LLVM pass is compared with the output before it of its kind, the LLVM IR with the last pass's", () => {
  expect(OUTPUTS.map((_, index) => diffBase(OUTPUTS, index))).toEqual([null, 0, 1, 2, 2, null, 5, null, null]);
  expect(diffBase(OUTPUTS, 99)).toBeNull();
});

test("a pass's lines are marked against the IR it was given", () => {
  const lines = outputDiff(OUTPUTS, 1)!;
  expect(lines.map(line => [line.status, line.text])).toEqual([
    ['unchanged', 'define void @k() {'],
    ['erased', '  %1 = add i32 0, 1'],
    ['unchanged', '  ret void'],
    ['unchanged', '}']
  ]);
  expect(outputDiff(OUTPUTS, 3)!.every(line => line.status === 'unchanged')).toBe(true);
  expect(outputDiff(OUTPUTS, 0)).toBeNull();
  expect(outputDiff(OUTPUTS, 7)).toBeNull();
});

test('the LLVM passes are folded groups of buttons named by the pass, between the stage outputs', () => {
  const shown: number[] = [];
  const pane = new OutputsPane(OUTPUTS, index => shown.push(index));
  const top = [...pane.node.children].map(child =>
    child.tagName === 'DETAILS' ? `[${child.querySelector('summary')!.textContent}]` : child.textContent
  );
  expect(top).toEqual(['compile outputs', '[LLVM passes (3)]', 'llir', '[LLVM passes (3)]', 'ptx', 'sass']);
  const buttons = [...pane.node.querySelectorAll<HTMLButtonElement>('.pv-output')];
  expect(buttons.map(b => b.textContent)).toEqual([
    'Annotation2MetadataPass',
    'InstCombinePass',
    'RequireAnalysisPass<…>',
    'llir',
    'CodeGenPrepare (codegenprepare)',
    'NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel)',
    'Register Coalescer (register-coalescer)',
    'ptx',
    'sass'
  ]);
  expect(buttons[6].title).toContain("LLVM machine IR after LLVM's pass Register Coalescer");
  expect(buttons[2].title).toContain('RequireAnalysisPass<llvm::GlobalsAA, llvm::Module>');
  buttons[5].click();
  expect(shown).toEqual([5]);
  const groups = [...pane.node.querySelectorAll('details')];
  expect(groups.map(group => group.open)).toEqual([false, false]);
  pane.setShown(5);
  expect(groups.map(group => group.open)).toEqual([false, true]);
  expect(buttons[5].getAttribute('aria-pressed')).toBe('true');
  pane.dispose();
});

test('a compile without LLVM passes has its stage buttons only, no group', () => {
  const pane = new OutputsPane(OUTPUTS.filter(output => llvmPass(output.stage) === null), () => undefined);
  expect(pane.node.querySelectorAll('details')).toHaveLength(0);
  expect([...pane.node.querySelectorAll('.pv-output')].map(b => b.textContent)).toEqual(['llir', 'ptx', 'sass']);
});
