/**
 * Two traces of one input in the viewer side by side, stepping together:
 * what `passviz diverge A B --html` and `passviz.widget.sidebyside` write.
 *
 * The page carries both traces and their alignment (`pair`, computed by
 * `passviz/trace/alignment.py`).  Each side is the ordinary viewer; moving
 * one (keys, timeline, buttons) moves the other to the counterpart step
 * (`Follower`).  Above them: what diverge says, a control that jumps to the
 * first divergence (d), the aligned passes to jump to, and switches for
 * stepping together and for one viewer above the other.  Each side's header
 * says how its step stands against the other's; in each timeline the step of
 * the divergence is marked and the steps without a counterpart are dimmed.
 */

import { Follower, PairAlignment, type Counterpart, type Side } from '../model/pairing';
import { el } from './dom';
import { readViewOptions } from './options';
import { TraceViewer } from './viewer';

const NAMES = ['A', 'B'] as const;

/** The pair's layout, in the page with the viewer's stylesheet (the page allows inline styles). */
const PAIR_STYLE = `
.pv-pair { display: flex; flex-direction: column; height: 100%; min-height: 0; font: 13px system-ui, sans-serif; color: #1f2328; }
.pv-pair-bar { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 4px 16px; padding: 4px 8px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
.pv-pair-summary { flex: 1 1 420px; min-width: 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 6.5em; overflow: auto; }
.pv-pair-summary .pv-pair-first { color: #82071e; font-weight: bold; }
.pv-pair-summary .pv-pair-agree { color: #1a7f37; font-weight: bold; }
.pv-pair-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; }
.pv-pair-jump { font-weight: bold; border-color: #cf222e; }
.pv-pair-jump.pv-pair-here { background: #ffebe9; }
.pv-pair-pass { max-width: 28em; font: inherit; }
.pv-pair-diff { flex: 1 1 100%; }
.pv-pair-diff pre { margin: 2px 0; max-height: 14em; overflow: auto; font-size: 12px; background: #fff; border: 1px solid #d0d7de; padding: 4px; }
.pv-pair-diff .pv-pair-minus { color: #82071e; background: #ffebe9; }
.pv-pair-diff .pv-pair-plus { color: #116329; background: #dafbe1; }
.pv-pair-panes { flex: 1 1 auto; min-height: 0; display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 4px; }
.pv-pair-stacked .pv-pair-panes { grid-template-columns: minmax(0, 1fr); grid-template-rows: minmax(0, 1fr) minmax(0, 1fr); }
.pv-pair-side { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
.pv-pair-head { display: flex; align-items: center; gap: 8px; padding: 2px 6px; min-width: 0; box-sizing: border-box; min-height: 3em; }
.pv-pair-name { font-weight: bold; font-size: 15px; }
.pv-pair-title { color: #57606a; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; flex: 0 1 auto; }
.pv-pair-badge { margin-left: auto; padding: 1px 8px; border-radius: 10px; min-width: 0; flex: 0 1 auto; font-size: 12px; }
.pv-pair-badge-aligned { background: #ddf4ff; color: #0550ae; }
.pv-pair-badge-unpaired { background: #fff8c5; color: #6f4e00; border: 1px dashed #bf8700; }
.pv-pair-badge-diverged { background: #ffebe9; color: #82071e; border: 1px solid #cf222e; font-weight: bold; }
.pv-pair-host { flex: 1 1 auto; min-height: 0; display: flex; flex-direction: column; }
.pv-pair .pv-body { grid-template-columns: minmax(130px, 20%) minmax(0, 1fr) minmax(200px, 34%); }
.pv-pair .pv-step.pv-pair-unpaired .pv-step-index { opacity: .45; text-decoration: line-through dotted; }
.pv-pair .pv-step.pv-pair-diverged { box-shadow: inset 4px 0 0 #cf222e; }
.pv-pair .pv-step.pv-pair-diverged .pv-step-name { color: #a40e26; font-weight: bold; }
.pv-pair .pv-step.pv-pair-diverged .pv-step-name::before { content: '● '; color: #cf222e; }
`;

/** What `inspect()` reports: the pair as a test sees it. */
export interface PairInspection {
  steps: [number, number];
  badges: [string, string];
  badgeKinds: [string, string];
  linked: boolean;
  stacked: boolean;
  divergence: [number, number] | null;
  /** The aligned pass the pass list shows (its index; -1: none). */
  pass: number;
  /** The steps each timeline marks as the divergence, and as without a counterpart. */
  marked: [number[], number[]];
  unpaired: [number, number];
}

/** Whether a key event comes from a box the person types into. */
function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable);
}

/** `step` as a person reads it. */
const stepName = (step: number): string => (step < 0 ? 'the initial IR' : `step ${step}`);

export class SideBySide {
  readonly node: HTMLElement;
  readonly viewers: [TraceViewer, TraceViewer];
  readonly alignment: PairAlignment;
  private readonly follower: Follower;
  private readonly badges: [HTMLElement, HTMLElement];
  private readonly jump: HTMLButtonElement;
  private readonly passList: HTMLSelectElement;
  private readonly linkBox: HTMLInputElement;
  private readonly stackBox: HTMLInputElement;
  private readonly style: HTMLStyleElement;
  /** Undoes each listener this added. */
  private readonly disposers: Array<() => void> = [];

  /** Throws `PairError` (or the viewer's `TraceError`) for data it cannot read. */
  constructor(data: unknown) {
    const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    const hosts = [el('div', { className: 'pv-pair-host' }), el('div', { className: 'pv-pair-host' })];
    let follower: Follower | null = null;
    const viewer = (side: Side): TraceViewer => {
      const sideData = record[side === 0 ? 'a' : 'b'];
      const made = new TraceViewer(sideData, {
        ...readViewOptions(sideData),
        onStep: step => follower?.moved(side, step)
      });
      hosts[side].appendChild(made.node);
      return made;
    };
    const first = viewer(0);
    try {
      this.viewers = [first, viewer(1)];
    } catch (error) {
      first.dispose();
      throw error;
    }
    try {
      this.alignment = PairAlignment.read(record.pair, [this.viewers[0].stepCount, this.viewers[1].stepCount]);
    } catch (error) {
      this.viewers.forEach(v => v.dispose());
      throw error;
    }
    this.follower = follower = new Follower(this.viewers, this.alignment, () => this.update());
    this.badges = [el('span', { className: 'pv-pair-badge' }), el('span', { className: 'pv-pair-badge' })];
    this.jump = el('button', {
      className: 'pv-button pv-pair-jump',
      text: '⤓ jump to divergence',
      title: 'show both traces at the first step after which their IR differs (d)',
      attrs: { type: 'button' }
    });
    this.jump.disabled = this.alignment.divergence === null;
    this.passList = this.passes();
    this.linkBox = el('input', { attrs: { type: 'checkbox', 'aria-label': 'step together' } });
    this.linkBox.checked = true;
    this.stackBox = el('input', { attrs: { type: 'checkbox', 'aria-label': 'one above the other' } });
    this.style = el('style', { text: PAIR_STYLE });
    this.node = el('div', { className: 'pv-pair', attrs: { 'aria-label': 'passviz: two traces side by side' } }, [
      this.style,
      this.bar(),
      el('div', { className: 'pv-pair-panes' }, [this.side(0, hosts[0]), this.side(1, hosts[1])])
    ]);
    Object.defineProperty(this.node, 'passvizPair', { value: this });
    this.listen(this.jump, 'click', () => void this.jumpToDivergence());
    this.listen(this.passList, 'change', () => void this.showPass(Number(this.passList.value)));
    this.listen(this.linkBox, 'change', () => void this.follower.setLinked(this.linkBox.checked, this.leader()));
    this.listen(this.stackBox, 'change', () => {
      this.node.classList.toggle('pv-pair-stacked', this.stackBox.checked);
      this.resize();
    });
    this.listen(document, 'keydown', this.onKey as EventListener);
    this.listen(window, 'resize', () => this.resize());
    this.mark();
    this.update();
  }

  /** A pair for `data` in `host`; data that cannot be read shows its error instead. */
  static mount(host: HTMLElement, data: unknown): SideBySide | null {
    try {
      const pair = new SideBySide(data);
      host.appendChild(pair.node);
      pair.resize();
      return pair;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      host.appendChild(el('div', { className: 'pv-error', attrs: { role: 'alert' }, text: `passviz: ${message}` }));
      return null;
    }
  }

  dispose(): void {
    this.follower.dispose();
    for (const undo of this.disposers.splice(0)) {
      undo();
    }
    this.viewers.forEach(v => v.dispose());
    this.node.remove();
  }

  /** Settles once both viewers show what they were last asked and are drawn. */
  get rendered(): Promise<void> {
    const pending = [this.viewers[0].rendered, this.viewers[1].rendered];
    return this.follower.settled
      .then(() => Promise.all(pending))
      .then(() => (pending[0] === this.viewers[0].rendered && pending[1] === this.viewers[1].rendered ? undefined : this.rendered));
  }

  /** Show both traces at their first divergence. */
  jumpToDivergence(): Promise<void> {
    const steps = this.alignment.divergence;
    return steps === null ? Promise.resolve() : this.follower.showBoth(steps);
  }

  /** Show both traces after the aligned pass `index`. */
  showPass(index: number): Promise<void> {
    const found = this.alignment.passes[index];
    return found === undefined ? Promise.resolve() : this.follower.showBoth(found.steps);
  }

  /** Move `side` to `step` as the person would: the other follows if linked. */
  goto(side: Side, step: number): Promise<void> {
    void this.viewers[side].setStep(step);
    this.follower.moved(side, step);
    return this.rendered;
  }

  /** Link the two (moving B to A's counterpart) or unlink them. */
  setLinked(linked: boolean): Promise<void> {
    this.linkBox.checked = linked;
    return this.follower.setLinked(linked, 0);
  }

  /** Tell both viewers their size changed. */
  resize(): void {
    this.viewers.forEach(v => v.resize());
  }

  inspect(): PairInspection {
    const marked = (side: Side, name: string): number[] =>
      [...this.viewers[side].node.querySelectorAll<HTMLElement>(`.pv-step.${name}`)].map(row => Number(row.dataset.step));
    return {
      steps: [this.viewers[0].step, this.viewers[1].step],
      badges: [this.badges[0].textContent ?? '', this.badges[1].textContent ?? ''],
      badgeKinds: [this.badges[0].dataset.kind ?? '', this.badges[1].dataset.kind ?? ''],
      linked: this.follower.linked,
      stacked: this.stackBox.checked,
      divergence: this.alignment.divergence,
      pass: this.passList.value === '' ? -1 : Number(this.passList.value),
      marked: [marked(0, 'pv-pair-diverged'), marked(1, 'pv-pair-diverged')],
      unpaired: [marked(0, 'pv-pair-unpaired').length, marked(1, 'pv-pair-unpaired').length]
    };
  }

  private listen(target: EventTarget, type: string, handler: EventListener): void {
    target.addEventListener(type, handler);
    this.disposers.push(() => target.removeEventListener(type, handler));
  }

  /** The side whose viewer has the keyboard (A when neither has). */
  private leader(): Side {
    return this.viewers[1].node.contains(document.activeElement) ? 1 : 0;
  }

  private onKey = (event: KeyboardEvent): void => {
    if (event.key !== 'd' || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) {
      return;
    }
    event.preventDefault();
    void this.jumpToDivergence();
  };

  /** What diverge says, the controls, and the diff where the traces first differ. */
  private bar(): HTMLElement {
    const summary = el('div', { className: 'pv-pair-summary', attrs: { 'aria-label': 'what passviz diverge says' } });
    // Its first two lines name the traces, which each side's header does.
    for (const line of this.alignment.summary.slice(2)) {
      const className = line.startsWith('first divergence') || line.startsWith('the initial IRs differ')
        ? 'pv-pair-first'
        : line.startsWith('no divergence') ? 'pv-pair-agree' : '';
      summary.appendChild(el('div', { className, text: line }));
    }
    const check = (box: HTMLInputElement, text: string, title: string): HTMLElement =>
      el('label', { className: 'pv-check', title }, [box, el('span', { text: ` ${text}` })]);
    const children: HTMLElement[] = [
      summary,
      el('div', { className: 'pv-pair-controls' }, [
        this.jump,
        this.passList,
        check(this.linkBox, 'step together', 'moving one trace moves the other to the aligned step'),
        check(this.stackBox, 'one above the other', 'show the two traces one above the other instead of side by side')
      ])
    ];
    if (this.alignment.diff.length > 0) {
      const pre = el('pre');
      for (const line of this.alignment.diff) {
        const className = line.startsWith('-') && !line.startsWith('---') ? 'pv-pair-minus' : line.startsWith('+') && !line.startsWith('+++') ? 'pv-pair-plus' : '';
        pre.appendChild(el('div', { className, text: line }));
      }
      if (this.alignment.diffCut > 0) {
        pre.appendChild(el('div', { text: `... ${this.alignment.diffCut} more diff lines` }));
      }
      children.push(el('details', { className: 'pv-pair-diff' }, [el('summary', { text: 'the IR where they first differ (normalized: names, locations and aliases aside)' }), pre]));
    }
    return el('div', { className: 'pv-pair-bar' }, children);
  }

  /** The aligned passes, to show both after one. */
  private passes(): HTMLSelectElement {
    const list = el('select', { className: 'pv-pair-pass', attrs: { 'aria-label': 'show both after an aligned pass' } });
    list.appendChild(el('option', { text: `aligned passes (${this.alignment.passes.length})`, attrs: { value: '', disabled: '' } }));
    this.alignment.passes.forEach((found, index) => {
      const mark = { agrees: '✓', differs: '✗', 'not compared': '·' }[this.alignment.verdict(index)];
      const names = found.labels[0] === found.labels[1] ? found.labels[0] : `${found.labels[0]} / ${found.labels[1]}`;
      list.appendChild(
        el('option', { text: `${mark} ${index + 1}. ${names}  (A ${stepName(found.steps[0])}, B ${stepName(found.steps[1])})`, attrs: { value: String(index) } })
      );
    });
    return list;
  }

  private side(side: Side, host: HTMLElement): HTMLElement {
    const title = this.alignment.summary[side]?.replace(/^[AB]: /, '') ?? '';
    return el('section', { className: 'pv-pair-side', attrs: { 'data-side': NAMES[side], 'aria-label': `trace ${NAMES[side]}` } }, [
      el('div', { className: 'pv-pair-head' }, [
        el('span', { className: 'pv-pair-name', text: NAMES[side] }),
        el('span', { className: 'pv-pair-title', text: title, title }),
        this.badges[side]
      ]),
      host
    ]);
  }

  /** In each timeline: the divergence's step, and the steps that have no counterpart. */
  private mark(): void {
    for (const side of [0, 1] as const) {
      const other = NAMES[1 - side];
      for (const row of this.viewers[side].node.querySelectorAll<HTMLElement>('.pv-steps .pv-step[data-step]')) {
        const step = Number(row.dataset.step);
        const found = this.alignment.counterpart(side, step);
        if (found.pairing !== 'aligned') {
          row.classList.add('pv-pair-unpaired');
          row.title += `\nno counterpart in ${other}: ${this.reason(side, step, found)}`;
        }
        if (this.alignment.divergence?.[side] === step) {
          row.classList.add('pv-pair-diverged');
          row.title += `\nfirst divergence: after this step ${NAMES[0]} and ${NAMES[1]} differ`;
        }
      }
    }
  }

  /** Why `step` of `side` has no counterpart on the other side. */
  private reason(side: Side, step: number, found: Counterpart): string {
    const other = NAMES[1 - side];
    const pass = step >= 0 ? this.viewers[side].trace.passNames[step] : '';
    switch (found.pairing) {
      case 'alone':
        return `a step of ${pass || 'a pass'}, which only ${NAMES[side]} ran`;
      case 'beyond':
        return 'after the last pass both ran';
      default:
        return `inside ${pass || 'a pass'}, a step ${other} does not record or pair`;
    }
  }

  /** Each side's badge, the pass list and the jump control, for the steps shown now. */
  private update(): void {
    const steps = [this.viewers[0].step, this.viewers[1].step] as const;
    for (const side of [0, 1] as const) {
      const other: Side = side === 0 ? 1 : 0;
      const [text, kind] = this.badge(side, steps[side], steps[other]);
      this.badges[side].textContent = text;
      this.badges[side].title = text;
      this.badges[side].dataset.kind = kind;
      this.badges[side].className = `pv-pair-badge pv-pair-badge-${kind}`;
    }
    const pass = this.alignment.passAt(0, steps[0]);
    this.passList.value = pass === null ? '' : String(pass);
    const divergence = this.alignment.divergence;
    this.jump.classList.toggle('pv-pair-here', divergence !== null && divergence[0] === steps[0] && divergence[1] === steps[1]);
  }

  /** How `mine` (this side's step) stands against `theirs` (the other's): text and kind. */
  private badge(side: Side, mine: number, theirs: number): [string, 'diverged' | 'aligned' | 'unpaired'] {
    const other = NAMES[1 - side];
    const otherSide: Side = side === 0 ? 1 : 0;
    const divergence = this.alignment.divergence;
    if (divergence !== null && divergence[side] === mine && divergence[otherSide] === theirs) {
      return [`● first divergence: after this step ${NAMES[0]} and ${NAMES[1]} differ`, 'diverged'];
    }
    const found = this.alignment.counterpart(side, mine);
    if (found.pairing !== 'aligned') {
      const shows = found.step === theirs ? `${other} stays at ${stepName(theirs)}, the last aligned before` : `${other} shows ${stepName(theirs)}`;
      return [`no counterpart in ${other} (${this.reason(side, mine, found)}); ${shows}`, 'unpaired'];
    }
    if (found.step === theirs) {
      return [`⇄ aligned with ${other} ${stepName(theirs)}`, 'aligned'];
    }
    // The other side stands at a step of its own that has no counterpart here.
    const back = this.alignment.counterpart(otherSide, theirs);
    if (back.pairing !== 'aligned' && back.step === mine) {
      return [`${other} ${stepName(theirs)} has no counterpart here: this is the last step aligned before it`, 'unpaired'];
    }
    return [`aligned with ${other} ${stepName(found.step)}; ${other} shows ${stepName(theirs)}`, 'unpaired'];
  }
}
