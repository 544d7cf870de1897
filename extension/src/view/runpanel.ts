/**
 * The run panel of `TraceWidget`: inputs (derived from the kernel's signature
 * by the kernel's Python, editable as `--arg`/`--grid`/`--seed` text), "Run on
 * CPU at this step", "Bisect" and "Run on GPU at this step" (disabled, saying
 * why, when the kernel's Python lacks pycuda or Triton), progress while the
 * kernel works, then the verdict, the max error, the differing elements, the
 * GPU's time and GB/s, and a link to the step bisect found.  It only exists where a kernel does (the widget), never on the
 * offline page.  Requests and replies are the widget's custom messages (see
 * `passviz/widget/trace_widget.py`).
 */

import type { RunRecord } from '../schema';
import { el } from './dom';
import { differenceLines, runDetails, VERDICT_MARK } from './runs';

/** A request to the kernel. */
export type PanelRequest =
  | { action: 'inputs' }
  | { action: 'run'; step: number; inputs: string }
  | { action: 'run-gpu'; step: number; inputs: string }
  | { action: 'bisect'; inputs: string };

/** A reply from the kernel. */
export interface PanelReply {
  event: 'inputs' | 'progress' | 'result' | 'error';
  action: string;
  inputs?: string;
  message?: string;
  records?: RunRecord[];
  lines?: string[];
  found?: number | null;
}

/** The title of a run's log, by the action that ran. */
const LOG_TITLES: Record<string, string> = { bisect: 'bisect report', 'run-gpu': 'GPU run' };

export class RunPanel {
  readonly node: HTMLDetailsElement;
  private readonly inputs: HTMLTextAreaElement;
  private readonly runButton: HTMLButtonElement;
  private readonly bisectButton: HTMLButtonElement;
  private readonly gpuButton: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly result: HTMLElement;
  private busy = false;
  private asked = false;
  /** Why the GPU cannot run (the widget's `gpu_missing`), or null when it can. */
  private gpuMissing: string | null = 'not checked yet';

  constructor(
    private readonly send: (request: PanelRequest) => void,
    /** The step the viewer shows now. */
    private readonly currentStep: () => number,
    private readonly goTo: (step: number) => void
  ) {
    this.inputs = el('textarea', {
      className: 'pv-run-inputs',
      attrs: { rows: '3', spellcheck: 'false', 'aria-label': 'kernel inputs', placeholder: 'asking the kernel…' }
    });
    this.runButton = el('button', { className: 'pv-link pv-run-cpu', text: 'Run on CPU at this step' });
    this.bisectButton = el('button', { className: 'pv-link pv-run-bisect', text: 'Bisect' });
    this.gpuButton = el('button', { className: 'pv-link pv-run-gpu', text: 'Run on GPU at this step' });
    this.status = el('span', { className: 'pv-run-status', attrs: { role: 'status' } });
    this.result = el('div', { className: 'pv-run-result' });
    // data-lm-suppress-shortcuts: JupyterLab's notebook keys stay out of the inputs box.
    this.node = el('details', { className: 'pv-runpanel', attrs: { 'data-lm-suppress-shortcuts': 'true' } }, [
      el('summary', { text: 'Run the kernel' }),
      el('div', { className: 'pv-runpanel-body' }, [
        this.inputs,
        el('div', { className: 'pv-runpanel-buttons' }, [
          this.runButton,
          this.bisectButton,
          this.gpuButton,
          this.status
        ]),
        this.result
      ])
    ]);
    this.node.addEventListener('toggle', this.onToggle);
    this.runButton.addEventListener('click', this.onRun);
    this.bisectButton.addEventListener('click', this.onBisect);
    this.gpuButton.addEventListener('click', this.onRunGpu);
    this.inputs.addEventListener('keydown', this.onKey);
    this.setGpu(this.gpuMissing);
  }

  /** Whether the GPU can run: null, or why not (shown as the GPU button's title). */
  setGpu(missing: string | null): void {
    this.gpuMissing = missing;
    this.setBusy(this.busy);
    this.gpuButton.title = missing === null ? 'compile this step with Triton and run it with pycuda' : `unavailable: ${missing}`;
  }

  /** Open the panel (and ask for inputs the first time). */
  open(): void {
    this.node.open = true;
    this.onToggle();
  }

  private onToggle = (): void => {
    if (this.node.open && !this.asked) {
      this.asked = true;
      this.send({ action: 'inputs' });
    }
  };

  private onRun = (): void => {
    this.start('running…');
    this.send({ action: 'run', step: this.currentStep(), inputs: this.inputs.value });
  };

  private onRunGpu = (): void => {
    this.start('running on the GPU…');
    this.send({ action: 'run-gpu', step: this.currentStep(), inputs: this.inputs.value });
  };

  // Keys typed into the inputs are the person's, not the viewer's shortcuts.
  private onKey = (event: KeyboardEvent): void => {
    event.stopPropagation();
  };

  private onBisect = (): void => {
    this.start('bisecting…');
    this.send({ action: 'bisect', inputs: this.inputs.value });
  };

  private start(text: string): void {
    this.setBusy(true);
    this.status.textContent = text;
    this.result.replaceChildren();
  }

  /** Enable the buttons, or not while a run is in progress (the GPU's also while it cannot run). */
  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.runButton.disabled = busy;
    this.bisectButton.disabled = busy;
    this.gpuButton.disabled = busy || this.gpuMissing !== null;
    this.node.classList.toggle('pv-busy', busy);
  }

  /** Whether a run is in progress. */
  get running(): boolean {
    return this.busy;
  }

  /** Take a reply from the kernel. */
  handle(reply: PanelReply): void {
    if (reply.event === 'inputs') {
      if (this.inputs.value.trim() === '') {
        this.inputs.value = reply.inputs ?? '';
        this.inputs.rows = Math.min(8, Math.max(3, this.inputs.value.split('\n').length));
      }
      this.inputs.placeholder = '--arg name=shape:dtype[:fill] … --grid N --seed S';
      return;
    }
    if (reply.event === 'progress') {
      this.status.textContent = reply.message ?? '';
      return;
    }
    if (reply.event === 'error') {
      if (reply.action !== 'inputs') {
        this.setBusy(false);
      }
      this.status.textContent = '';
      this.result.replaceChildren(el('div', { className: 'pv-run-error', attrs: { role: 'alert' }, text: reply.message ?? 'error' }));
      return;
    }
    this.setBusy(false);
    this.status.textContent = '';
    this.showResult(reply);
  }

  private showResult(reply: PanelReply): void {
    const records = reply.records ?? [];
    const found = reply.found ?? null;
    // A bisect's verdict is that of the step it found, or of its last run when none differs.
    const main = records.find(r => r.first) ?? records[records.length - 1];
    const parts: Array<Node | null> = [];
    if (main) {
      const step = main.step < 0 ? 'the initial IR' : `step ${main.step}`;
      const where = main.device ? `${step} on ${main.device}` : step;
      parts.push(
        el('div', { className: `pv-run-verdict pv-run-${main.verdict}` }, [
          el('strong', { text: `${VERDICT_MARK[main.verdict] ?? '!'} ${main.verdict}` }),
          el('span', { text: ` · ${where} · ${runDetails(main)}` })
        ])
      );
    }
    if (reply.action === 'bisect') {
      if (found === null) {
        parts.push(el('div', { text: 'no step changes the outputs' }));
      } else {
        const link = el('button', { className: 'pv-link pv-run-goto', text: `go to step ${found}`, attrs: { 'data-step': String(found) } });
        link.addEventListener('click', () => this.goTo(found));
        parts.push(el('div', {}, [el('span', { text: 'first differing step: ' }), link]));
      }
    }
    if (main?.message) {
      parts.push(el('div', { className: 'pv-run-message', text: main.message }));
    }
    const differences = main ? differenceLines(main) : [];
    if (differences.length > 0) {
      parts.push(el('pre', { className: 'pv-run-differences', text: differences.join('\n') }));
    }
    const lines = reply.lines ?? [];
    if (lines.length > 0) {
      parts.push(
        el('details', { className: 'pv-run-log' }, [
          el('summary', { text: LOG_TITLES[reply.action] ?? 'outputs' }),
          el('pre', { text: lines.join('\n') })
        ])
      );
    }
    this.result.replaceChildren(...parts.filter((p): p is Node => p !== null));
  }

  dispose(): void {
    this.node.removeEventListener('toggle', this.onToggle);
    this.runButton.removeEventListener('click', this.onRun);
    this.bisectButton.removeEventListener('click', this.onBisect);
    this.gpuButton.removeEventListener('click', this.onRunGpu);
    this.inputs.removeEventListener('keydown', this.onKey);
  }
}
