/**
 * The compile's text outputs (`meta.imported.outputs`: a captured Triton
 * compile's LLVM IR, PTX and SASS), above the timeline's steps: one button
 * each, which shows that output in the IR pane, as the compiler wrote it.
 */

import type { StageOutput } from '../schema';
import { el } from './dom';

/** What each stage's output is, for its button's tooltip. */
const KINDS: Record<string, string> = { llir: 'LLVM IR', ptx: 'PTX', sass: 'SASS', amdgcn: 'AMDGCN' };

export class OutputsPane {
  readonly node: HTMLElement;
  private readonly buttons: HTMLButtonElement[];

  constructor(
    readonly outputs: StageOutput[],
    private readonly onShow: (index: number) => void
  ) {
    this.buttons = outputs.map((output, index) => {
      const button = el('button', {
        className: 'pv-output',
        text: output.stage,
        title: `show the ${KINDS[output.stage] ?? output.stage} the compile made after its MLIR passes`,
        attrs: { type: 'button', 'aria-pressed': 'false' }
      }) as HTMLButtonElement;
      button.dataset.index = String(index);
      return button;
    });
    this.node = el('div', { className: 'pv-outputs', attrs: { 'aria-label': 'compile outputs' } }, [
      el('span', { className: 'pv-outputs-title', text: 'compile outputs' }),
      ...this.buttons
    ]);
    this.node.hidden = outputs.length === 0;
    this.node.addEventListener('click', this.onClick);
  }

  /** Mark the output shown now (null: the IR pane shows a step's IR). */
  setShown(index: number | null): void {
    this.buttons.forEach((button, i) => button.setAttribute('aria-pressed', String(i === index)));
  }

  dispose(): void {
    this.node.removeEventListener('click', this.onClick);
  }

  private onClick = (event: MouseEvent): void => {
    const button = (event.target as HTMLElement).closest<HTMLElement>('.pv-output');
    if (button?.dataset.index !== undefined) {
      this.onShow(Number(button.dataset.index));
    }
  };
}
