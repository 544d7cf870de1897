/**
 * The compile's text outputs (`meta.imported.outputs`: a captured Triton
 * compile's LLVM IR, PTX and SASS), above the timeline's steps: one button
 * each, which shows that output in the IR pane, as the compiler wrote it.
 *
 * With `passviz triton --llvm-passes`, LLVM's IR after each of its own passes
 * comes too, named `llvm: PASS` (`llvm mir: PASS` for the machine passes), in
 * the order the passes ran: each run of them is one folded group of buttons,
 * and `outputDiff` gives each one's lines against the IR before the pass.
 */

import { diffLines, type DiffLine } from '../model/irtext';
import type { StageOutput } from '../schema';
import { el } from './dom';

/** What each stage's output is, for its button's tooltip. */
const KINDS: Record<string, string> = {
  llvm: 'LLVM IR',
  'llvm mir': 'LLVM machine IR',
  llir: 'LLVM IR',
  ptx: 'PTX',
  sass: 'SASS',
  amdgcn: 'AMDGCN'
};

/** An LLVM pass's output, `llvm: PASS` or `llvm mir: PASS`: its kind and the pass; null for a stage's output. */
export function llvmPass(stage: string): { kind: 'llvm' | 'llvm mir'; pass: string } | null {
  const found = /^(llvm|llvm mir): (.*)$/s.exec(stage);
  return found ? { kind: found[1] as 'llvm' | 'llvm mir', pass: found[2] } : null;
}

/**
 * The output `index` is compared with: for an LLVM pass, the output before it of its kind (the IR
 * the pass was given); for the LLVM IR stage (`llir`), the last LLVM IR pass before it; else none.
 */
export function diffBase(outputs: StageOutput[], index: number): number | null {
  const output = outputs[index];
  if (output === undefined) {
    return null;
  }
  const kind = llvmPass(output.stage)?.kind ?? (output.stage === 'llir' ? 'llvm' : null);
  if (kind === null) {
    return null;
  }
  for (let before = index - 1; before >= 0; before--) {
    if (llvmPass(outputs[before].stage)?.kind === kind) {
      return before;
    }
  }
  return null;
}

/** The lines of output `index` marked against its `diffBase`, or null where it has none. */
export function outputDiff(outputs: StageOutput[], index: number): DiffLine[] | null {
  const base = diffBase(outputs, index);
  if (base === null) {
    return null;
  }
  const lines = (text: string) => text.replace(/\n$/, '').split('\n').map(line => ({ text: line, op: null }));
  return diffLines(lines(outputs[base].text), lines(outputs[index].text));
}

export class OutputsPane {
  readonly node: HTMLElement;
  private readonly buttons: HTMLButtonElement[];

  constructor(
    readonly outputs: StageOutput[],
    private readonly onShow: (index: number) => void
  ) {
    this.buttons = outputs.map((output, index) => this.button(output, index));
    const children: HTMLElement[] = [el('span', { className: 'pv-outputs-title', text: 'compile outputs' })];
    let group: HTMLElement[] = [];
    const flush = (): void => {
      if (group.length > 0) {
        const title = `LLVM passes (${group.length})`;
        children.push(el('details', { className: 'pv-outputs-llvm' }, [el('summary', { text: title }), ...group]));
        group = [];
      }
    };
    outputs.forEach((output, index) => {
      if (llvmPass(output.stage) !== null) {
        group.push(this.buttons[index]);
        return;
      }
      flush();
      children.push(this.buttons[index]);
    });
    flush();
    this.node = el('div', { className: 'pv-outputs', attrs: { 'aria-label': 'compile outputs' } }, children);
    this.node.hidden = outputs.length === 0;
    this.node.addEventListener('click', this.onClick);
  }

  /** Mark the output shown now (null: the IR pane shows a step's IR); its group unfolds. */
  setShown(index: number | null): void {
    this.buttons.forEach((button, i) => button.setAttribute('aria-pressed', String(i === index)));
    const group = index === null ? null : this.buttons[index]?.closest('details');
    if (group) {
      group.open = true;
    }
  }

  dispose(): void {
    this.node.removeEventListener('click', this.onClick);
  }

  private button(output: StageOutput, index: number): HTMLButtonElement {
    const pass = llvmPass(output.stage);
    const title = pass
      ? `show the ${KINDS[pass.kind]} after LLVM's pass ${pass.pass}, against the IR before it`
      : `show the ${KINDS[output.stage] ?? output.stage} the compile made after its MLIR passes`;
    const button = el('button', {
      className: pass ? 'pv-output pv-output-llvm' : 'pv-output',
      // `RequireAnalysisPass<llvm::GlobalsAA, llvm::Module, ...>`: the template's arguments in the tooltip only.
      text: pass ? pass.pass.replace(/<.*>/s, '<…>') : output.stage,
      title,
      attrs: { type: 'button', 'aria-pressed': 'false' }
    }) as HTMLButtonElement;
    button.dataset.index = String(index);
    return button;
  }

  private onClick = (event: MouseEvent): void => {
    const button = (event.target as HTMLElement).closest<HTMLElement>('.pv-output');
    if (button?.dataset.index !== undefined) {
      this.onShow(Number(button.dataset.index));
    }
  };
}
