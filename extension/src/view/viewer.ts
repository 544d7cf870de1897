/**
 * The trace viewer: timeline, graph, IR and details panes for one trace.
 *
 * It is plain DOM with no JupyterLab dependency, so that the MIME renderer,
 * the document viewer, the ipywidget and the standalone HTML page all show
 * the same component.  Keys: ← → step through the steps the timeline shows,
 * Home/End go to the first and last, n/N to the next/previous step that changed
 * something, t/T to the next/previous step touching the selected op, z zooms to
 * the change, / searches, Escape leaves the search box.
 */

import { shareUnchanged, type DiffGraph } from '../model/diff';
import { dispatchVocabulary } from '../model/dispatch';
import { diffLines, irLines, printedNames, type IRLine, type PrintedNames } from '../model/irtext';
import { shareFrames, StructureLayout, type Frame } from '../model/layout';
import { lineage } from '../model/lineage';
import type { IRState, OpEntry } from '../model/state';
import { StepCache, StepModel, type AheadResult } from '../model/stepmodel';
import { stepCounts } from '../model/steps';
import { StateCursor, stepChanged, Trace, TraceError } from '../model/trace';
import { AheadWorker } from './ahead';
import { DetailsPane } from './details';
import { DispatchPane, type DispatchInspection } from './dispatchgraph';
import { afterNextPaint, el, scrollPending } from './dom';
import { GraphPane, type DrawnNode, type EdgeFilter, type PageBox } from './graphview';
import { IRPane, type CompareBase } from './irpane';
import { diffBase, outputDiff, OutputsPane } from './outputs';
import { RunsPane } from './runs';
import { SourcePane } from './sourcepane';
import { Timeline, type TimelineFilter } from './timeline';

export interface ViewerOptions {
  /** The step to show first (-1: the initial IR). */
  step?: number;
  selected?: string | null;
  /** Timeline filters to start with. */
  filter?: Partial<TimelineFilter>;
  /** Which edges to draw to start with. */
  edges?: Partial<EdgeFilter>;
  /** Only these steps are offered (a filter applied in Python); the others stay hidden. */
  steps?: number[];
  /** Called when the person moves to another step. */
  onStep?: (step: number) => void;
  /** Called when the person selects an op (or clears the selection). */
  onSelect?: (op: string | null) => void;
}

/** What `inspect()` reports: the viewer as a test or tool sees it, in page pixels. */
export interface Inspection {
  step: number;
  viewport: PageBox;
  nodes: Array<{ id: string; kind: string; status: string; parent: string | null; label: string; box: PageBox; labelPx: number }>;
  visibleSteps: number[];
  irText: string;
  /** The IR pane's changed lines, and how many of them (and of the added or moved ones) are in its view. */
  irChanges: { changed: number; added: number; visible: number; addedVisible: number };
  /** The nodes the camera follows, how many lie outside the view, and where the minimap is (null: folded). */
  changes: { targets: string[]; outside: number; minimap: PageBox | null };
  /** The dispatch graph at the step, and whether it is shown (`D`); none without `meta.dispatch`. */
  dispatch: DispatchInspection;
  /** How many steps so far were built and laid out by the worker thread, not the page. */
  laidAhead: number;
}

/** The viewers on the page, for tests and tools: `window.passvizViewers`. */
interface Registry {
  passvizViewers?: TraceViewer[];
}

const OP_ID = /^o[0-9]+$/;

/** Modules with more graph nodes than this open with their untouched functions collapsed. */
const COLLAPSE_ABOVE = 400;

/**
 * Whether `op` is a function, whose box starts collapsed in big modules: an op with a
 * `function_type` (MLIR's FunctionOpInterface keeps it), whatever its dialect calls it.
 */
const isFunction = (op: OpEntry | undefined): boolean =>
  op !== undefined && (op.props.function_type ?? op.attrs.function_type) !== undefined;

/** How long `afterPaint` waits for a frame: a hidden page paints none. */
const FRAME_WAIT_MS = 1000;

/** `afterNextPaint(work)`, or after `FRAME_WAIT_MS` if no frame comes; settles when it ran. */
function afterPaint(work: () => void): Promise<void> {
  return new Promise((done, fail) => {
    let ran = false;
    const run = (): void => {
      if (ran) {
        return;
      }
      ran = true;
      try {
        work();
        done();
      } catch (error) {
        fail(error);
      }
    };
    afterNextPaint(run);
    setTimeout(run, FRAME_WAIT_MS);
  });
}

/** Settle when the browser is idle (no frame or input waiting), or after a second at the latest. */
function idle(): Promise<void> {
  return new Promise(done => {
    if (typeof requestIdleCallback === 'function') {
      requestIdleCallback(() => done(), { timeout: 1000 });
    } else {
      setTimeout(done, 0);
    }
  });
}

/** Whether a key event comes from a box the person types into (where arrows and letters are theirs). */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) {
    return false;
  }
  if (target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable) {
    return true;
  }
  if (target.tagName !== 'INPUT') {
    return false;
  }
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range'].includes(type);
}

export class TraceViewer {
  readonly node: HTMLElement;
  readonly trace: Trace;
  private readonly cursor: StateCursor;
  private readonly layout = new StructureLayout();
  /** Boxes collapsed by the viewer (not by the person): they open when a step changes something inside. */
  private readonly autoCollapsed = new Set<string>();
  private readonly timeline: Timeline;
  private readonly graphPane: GraphPane;
  private readonly irPane: IRPane;
  private readonly details: DetailsPane;
  private readonly source: SourcePane;
  /**
   * The dispatch graph at the current step, shown on demand (D); a click selects in the main graph.
   * Null for a trace whose header records no dispatch vocabulary (`meta.dispatch`): no pane, no button.
   */
  private readonly dispatchPane: DispatchPane | null;
  /** The kernel runs recorded in the trace, above the timeline's steps. */
  readonly runs: RunsPane;
  /** The compile's text outputs (a captured Triton compile's LLVM IR, PTX, SASS), above the runs. */
  private readonly outputs: OutputsPane;
  private readonly title: HTMLElement;
  private readonly legend: HTMLElement;
  /** Each step's graph with statuses: graphs of all steps share the nodes of what a step did not change. */
  private readonly model: StepModel;
  /** The thread that builds and lays out steps ahead (null: none could start; undefined: not yet started). */
  private aheadWorker: AheadWorker | null | undefined = undefined;
  private readonly lines = new StepCache<IRLine[]>(6);
  private readonly names = new StepCache<PrintedNames>(6);
  /** The next step, laid out while the person reads this one (null: none). */
  private ahead: { step: number; diff: DiffGraph; layout: StructureLayout; frames: Map<string, Frame> } | null = null;
  /** The step the worker is laying out now, with the layout count it was asked at. */
  private pending: { step: number; generation: number; result: Promise<AheadResult | null> } | null = null;
  /** How many steps the page drew from the worker's graphs. */
  private laidAhead = 0;
  private readonly edgeFilter: EdgeFilter = { use: true, branch: true };
  private current = -2;
  private selected: string | null;
  private token = 0;
  private firstDraw = true;
  /** Set while a held key repeats: steps then draw without animation. */
  private repeating = false;
  private centreSelection = false;
  /** A frame is asked for to draw the step a held key reached. */
  private framePending = false;
  /** Settles when the latest requested step is drawn and its camera move is done. */
  rendered: Promise<void> = Promise.resolve();

  constructor(
    private readonly data: unknown,
    private readonly options: ViewerOptions = {}
  ) {
    this.trace = Trace.from(data);
    this.cursor = new StateCursor(this.trace);
    this.model = new StepModel(this.trace, this.cursor);
    const dispatch = dispatchVocabulary(this.trace.header.meta.dispatch);
    this.dispatchPane = dispatch === null ? null : new DispatchPane(id => this.select(id, true, true), step => this.cursor.at(step), dispatch);
    this.selected = options.selected ?? null;
    Object.assign(this.edgeFilter, options.edges ?? {});
    this.timeline = new Timeline(this.trace, step => this.go(step, true));
    if (options.steps) {
      this.timeline.restrict(options.steps);
    }
    if (options.filter) {
      this.timeline.setFilter(options.filter);
    }
    this.graphPane = new GraphPane(
      id => this.select(id, true),
      id => this.toggle(id)
    );
    this.irPane = new IRPane(
      op => this.select(op, true, true),
      () => this.redraw(),
      this.trace.header.meta.aliases
    );
    this.details = new DetailsPane(
      step => this.go(step, true),
      id => this.select(id, true, true),
      dispatch
    );
    this.source = new SourcePane(this.trace.header.sources ?? {}, op => this.select(op, true, true));
    this.runs = new RunsPane(step => this.go(step, true));
    const stepList = this.timeline.node.querySelector<HTMLElement>('.pv-steps');
    this.outputs = new OutputsPane(this.trace.header.meta.imported?.outputs ?? [], index => this.showOutput(index));
    this.timeline.node.insertBefore(this.outputs.node, stepList);
    this.timeline.node.insertBefore(this.runs.node, stepList);
    this.runs.show(this.trace.runs, stepList);
    this.title = el('div', { className: 'pv-title' });
    this.legend = el('div', { className: 'pv-legend' }, [
      el('span', { className: 'pv-key pv-key-added', text: 'added' }),
      el('span', { className: 'pv-key pv-key-modified', text: 'modified' }),
      el('span', { className: 'pv-key pv-key-moved', text: 'moved' }),
      el('span', { className: 'pv-key pv-key-erased', text: 'erased' }),
      el('span', { className: 'pv-key pv-key-chain', text: 'pointer chain' }),
      el('span', { className: 'pv-hint', text: 'double-click a box to collapse or expand it' })
    ]);
    this.node = el(
      'div',
      {
        className: 'pv-viewer',
        attrs: { tabindex: '0', 'data-lm-suppress-shortcuts': 'true', 'aria-label': 'passviz trace viewer' }
      },
      [
        this.toolbar(),
        el('div', { className: 'pv-body' }, [
          this.timeline.node,
          el('div', { className: 'pv-center' }, [this.graphPane.node, ...(this.dispatchPane ? [this.dispatchPane.node] : []), this.legend]),
          el('div', { className: 'pv-side' }, [this.irPane.node, this.source.node, this.details.node])
        ])
      ]
    );
    // Tools and tests reach the viewer from its element, and every viewer from the page.
    Object.defineProperty(this.node, 'passvizViewer', { value: this });
    const registry = window as unknown as Registry;
    (registry.passvizViewers ??= []).push(this);
    this.node.addEventListener('keydown', this.onKey);
    this.node.addEventListener('keyup', this.onKeyUp);
    this.node.addEventListener('click', this.onClick);
    const first = options.step ?? -1;
    this.go(Number.isInteger(first) && first >= -1 && first < this.trace.steps.length ? first : -1, false);
  }

  /** A viewer for `data` in `host`; a trace that cannot be read shows its error instead. */
  static mount(host: HTMLElement, data: unknown, options: ViewerOptions = {}): TraceViewer | null {
    try {
      const viewer = new TraceViewer(data, options);
      host.appendChild(viewer.node);
      return viewer;
    } catch (error) {
      const message = error instanceof TraceError || error instanceof RangeError ? error.message : String(error);
      host.appendChild(el('div', { className: 'pv-error', attrs: { role: 'alert' }, text: `passviz: ${message}` }));
      return null;
    }
  }

  dispose(): void {
    this.node.removeEventListener('keydown', this.onKey);
    this.node.removeEventListener('keyup', this.onKeyUp);
    this.node.removeEventListener('click', this.onClick);
    const registry = (window as unknown as Registry).passvizViewers;
    const position = registry?.indexOf(this) ?? -1;
    if (position >= 0) {
      registry!.splice(position, 1);
    }
    this.timeline.dispose();
    this.runs.dispose();
    this.outputs.dispose();
    this.irPane.dispose();
    this.details.dispose();
    this.source.dispose();
    this.graphPane.dispose();
    this.aheadWorker?.dispose();
    this.node.remove();
  }

  get step(): number {
    return this.current;
  }

  get stepCount(): number {
    return this.trace.steps.length;
  }

  get selectedOp(): string | null {
    return this.selected;
  }

  /** Show `step` (-1: the initial IR). */
  setStep(step: number): Promise<void> {
    this.go(step, false);
    return this.rendered;
  }

  /** Show `step` and settle when it is drawn (the inspection API's name for `setStep`). */
  goto(step: number): Promise<void> {
    return this.setStep(step);
  }

  /** Select `id` (an op, block or region) or clear the selection. */
  selectOp(id: string | null): void {
    this.select(id, false, true);
  }

  /** Set the timeline's filters. */
  setFilter(filter: Partial<TimelineFilter>): void {
    this.timeline.setFilter(filter);
  }

  /** The next (+1) or previous (-1) step the timeline shows that `accept` accepts. */
  move(direction: 1 | -1, accept: (step: number) => boolean = () => true): void {
    const visible = this.timeline.visibleSteps();
    const next =
      direction > 0
        ? visible.find(s => s > this.current && accept(s))
        : [...visible].reverse().find(s => s < this.current && accept(s));
    if (next !== undefined) {
      this.go(next, true);
    }
  }

  /** The next (+1) or previous (-1) shown step that changed the IR. */
  moveToChange(direction: 1 | -1): void {
    this.move(direction, step => step >= 0 && stepChanged(this.trace.steps[step]));
  }

  /** The next (+1) or previous (-1) shown step that touched the selected op (its lineage). */
  moveAlongSelection(direction: 1 | -1): void {
    if (this.selected === null) {
      return;
    }
    const steps = new Set(lineage(this.trace.steps, this.selected).map(event => event.step));
    this.move(direction, step => steps.has(step));
  }

  /** Tell the graph its container changed size. */
  resize(): void {
    this.graphPane.resize();
  }

  /** The viewer as tests and tools see it: step, graph nodes and viewport in page pixels, visible steps, IR text. */
  inspect(): Inspection {
    const rect = this.graphPane.node.getBoundingClientRect();
    return {
      step: this.current,
      viewport: { x: rect.left + window.scrollX, y: rect.top + window.scrollY, w: rect.width, h: rect.height },
      nodes: this.graphPane.inspectNodes(),
      visibleSteps: [...this.timeline.visibleSteps()],
      irText: this.irPane.plainText(),
      irChanges: this.irPane.changesInView(),
      changes: this.graphPane.inspectChanges(),
      dispatch: this.dispatchPane?.inspect() ?? { available: false, visible: false, selected: null, nodes: [], edges: [] },
      laidAhead: this.stepsLaidAhead
    };
  }

  /** Whether a pane still waits to scroll to what the step changed (tests settle once none does). */
  get scrolling(): boolean {
    return scrollPending();
  }

  /** The nodes drawn now, with status, position and marks. */
  drawnNodes(): DrawnNode[] {
    return this.graphPane.drawn();
  }

  /** Whether the graph is drawn as a sketch (too many nodes in view to read labels). */
  get sketched(): boolean {
    return this.graphPane.sketched;
  }

  drawnEdges(): ReturnType<GraphPane['drawnEdges']> {
    return this.graphPane.drawnEdges();
  }

  private toolbar(): HTMLElement {
    const button = (text: string, title: string, action: () => void): HTMLElement => {
      const node = el('button', { className: 'pv-button', text, title, attrs: { type: 'button' } });
      node.addEventListener('click', action);
      return node;
    };
    const toggle = (label: string, key: keyof EdgeFilter): HTMLElement => {
      const box = el('input', { attrs: { type: 'checkbox' } });
      box.checked = this.edgeFilter[key];
      box.addEventListener('change', () => {
        this.edgeFilter[key] = box.checked;
        this.redraw();
      });
      return el('label', { className: 'pv-check' }, [box, el('span', { text: ` ${label}` })]);
    };
    return el('div', { className: 'pv-toolbar' }, [
      button('|◀', 'first step (Home)', () => this.edge(-1)),
      button('◀', 'previous step (←)', () => this.move(-1)),
      button('▶', 'next step (→)', () => this.move(1)),
      button('▶|', 'last step (End)', () => this.edge(1)),
      button('▶Δ', 'next step that changed something (n; previous: N)', () => this.moveToChange(1)),
      button('▶●', 'next step touching the selected op (t; previous: T)', () => this.moveAlongSelection(1)),
      this.title,
      el('span', { className: 'pv-spacer' }),
      toggle('dataflow', 'use'),
      toggle('control flow', 'branch'),
      button('zoom to change', 'zoom to what this step changed (z)', () => void this.graphPane.zoomToChange(true)),
      button('fit', 'zoom to the whole graph', () => this.graphPane.fit()),
      this.dispatchPane
        ? button('dispatches', 'show or hide the dispatch graph: dispatches and the tensors between them (D)', () => this.dispatchPane?.toggle())
        : null
    ]);
  }

  /** The first (-1) or last (+1) step the timeline shows. */
  private edge(direction: 1 | -1): void {
    const visible = this.timeline.visibleSteps();
    const step = direction < 0 ? visible[0] : visible[visible.length - 1];
    if (step !== undefined) {
      this.go(step, true);
    }
  }

  /**
   * Keep the keyboard on the viewer whatever was clicked (the graph's canvas,
   * a link in the details that re-rendering removes, a checkbox): only a box
   * the person types into keeps the focus.
   */
  private onClick = (event: MouseEvent): void => {
    if (!typing(event.target) && !typing(document.activeElement)) {
      this.node.focus({ preventScroll: true });
    }
  };

  private onKeyUp = (): void => {
    if (this.repeating) {
      this.repeating = false;
      this.redraw();
    }
  };

  private onKey = (event: KeyboardEvent): void => {
    if (typing(event.target)) {
      if (event.key === 'Escape') {
        this.node.focus({ preventScroll: true });
      }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    const actions: Record<string, () => void> = {
      '/': () => this.timeline.search.focus(),
      ArrowRight: () => this.move(1),
      ArrowLeft: () => this.move(-1),
      Home: () => this.edge(-1),
      End: () => this.edge(1),
      n: () => this.moveToChange(1),
      N: () => this.moveToChange(-1),
      t: () => this.moveAlongSelection(1),
      T: () => this.moveAlongSelection(-1),
      z: () => void this.graphPane.zoomToChange(true),
      D: () => this.dispatchPane?.toggle()
    };
    const action = actions[event.key];
    if (!action) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    this.repeating = event.repeat;
    action();
  };

  private stateLines(step: number, state: IRState): IRLine[] {
    return this.lines.get(step, () => irLines(state));
  }

  private stateNames(step: number, state: IRState): PrintedNames {
    return this.names.get(step, () => printedNames(state, this.stateLines(step, state)));
  }

  private go(step: number, fromUser: boolean): void {
    if (!Number.isInteger(step) || step < -1 || step >= this.trace.steps.length) {
      throw new RangeError(`step ${step} is out of range: the trace has ${this.trace.steps.length} steps`);
    }
    if (step === this.current) {
      return;
    }
    this.current = step;
    this.node.dataset.step = String(step);
    this.timeline.setCurrent(step);
    if (fromUser) {
      this.options.onStep?.(step);
    }
    if (this.repeating) {
      // A held key steps faster than a step draws: draw the latest step once per frame.
      if (!this.framePending) {
        this.framePending = true;
        this.rendered = new Promise(done => requestAnimationFrame(() => {
          this.framePending = false;
          this.drawCurrent().then(done, done);
        }));
      }
      return;
    }
    this.drawCurrent();
  }

  /** Draw the current step; `rendered` settles when it is drawn. */
  private drawCurrent(): Promise<void> {
    const step = this.current;
    const token = ++this.token;
    this.rendered = this.draw(step, token).catch((error: unknown) => {
      this.title.textContent = `step ${step}: ${error instanceof Error ? error.message : String(error)}`;
    });
    return this.rendered;
  }

  /** Select `id`; `centre`: and bring it into view (a selection made outside the graph). */
  private select(id: string | null, fromUser: boolean, centre = false): void {
    if (id === this.selected) {
      if (centre && id !== null) {
        this.centreSelection = true;
        this.redraw();
      }
      return;
    }
    this.selected = id;
    this.centreSelection = centre && id !== null;
    this.redraw();
    if (fromUser && (id === null || OP_ID.test(id))) {
      this.options.onSelect?.(id);
    }
  }

  /** Collapse or expand a box (the person's choice: the viewer will not undo it). */
  private toggle(id: string): void {
    this.autoCollapsed.delete(id);
    if (this.layout.collapsed.has(id)) {
      this.layout.collapsed.delete(id);
    } else {
      this.layout.collapsed.add(id);
    }
    this.redraw();
  }

  /** Draw the current step again (selection, filter or collapsed boxes changed). */
  private redraw(): void {
    const token = ++this.token;
    this.rendered = this.draw(this.current, token).catch(() => undefined);
  }

  /** The nodes the step is about: what it changed, erased or matched; boxes only when nothing inside them changed. */
  private targets(diff: DiffGraph, root: string | null): string[] {
    const leaves: string[] = [];
    const boxes: string[] = [];
    for (const node of diff.nodes.values()) {
      if (node.status === 'unchanged') {
        continue;
      }
      const leaf = node.kind === 'op' || node.kind === 'arg' || node.status === 'added';
      (leaf ? leaves : boxes).push(node.id);
    }
    // The matched op too, unless it is a box whose changed insides are the targets already
    // (an erased box as big as the module would take the camera far out).
    const rootNode = root !== null ? diff.nodes.get(root) : undefined;
    if (rootNode !== undefined && (rootNode.kind !== 'box' || leaves.length === 0)) {
      leaves.push(rootNode.id);
    }
    return leaves.length > 0 ? leaves : boxes;
  }

  /**
   * In big modules, collapse the functions a step does not touch (once, at the start).  Opened
   * on the initial IR, or on a step that touches no function, a big module is an overview: every
   * function a labelled box with its size, opened by a double-click or by the first step that
   * changes something inside it.
   */
  private collapseFunctions(diff: DiffGraph, state: IRState, keep: Set<string>): void {
    if (diff.nodes.size <= COLLAPSE_ABOVE) {
      return;
    }
    const functions = [...diff.nodes.values()].filter(
      node => node.kind === 'box' && isFunction(state.ops.get(node.id))
    );
    // With one function nothing is unrelated.
    if (functions.length < 2) {
      return;
    }
    const open = functions.some(f => keep.has(f.id)) ? keep : new Set<string>();
    for (const node of functions) {
      if (!open.has(node.id)) {
        this.layout.collapsed.add(node.id);
        this.autoCollapsed.add(node.id);
      }
    }
  }

  /** The boxes around `ids`. */
  private static ancestors(diff: DiffGraph, ids: Iterable<string>): Set<string> {
    const found = new Set<string>();
    for (const id of ids) {
      let parent = diff.nodes.get(id)?.parent ?? null;
      while (parent !== null && !found.has(parent)) {
        found.add(parent);
        parent = diff.nodes.get(parent)?.parent ?? null;
      }
    }
    return found;
  }

  private async draw(step: number, token: number): Promise<void> {
    // A step not built yet (a jump): the worker builds and lays it out while this thread
    // replays the states around it (for the IR pane and details) and the page paints.
    const building = this.model.diffs.cached(step) === undefined && !this.repeating && this.aheadWorker?.alive ? this.laidOut(step) : null;
    const [before, after] = this.cursor.around(step);
    if (building !== null) {
      const laid = await building;
      if (token !== this.token) {
        return; // a later draw shows its own step
      }
      if (laid !== null && this.model.diffs.cached(step) === undefined) {
        this.takeAhead(laid);
      }
    }
    const record = step >= 0 ? this.trace.steps[step] : null;
    const diff = this.model.diff(step, before, after);
    const root = record?.root ?? null;
    const wanted = this.targets(diff, root);
    const holders = TraceViewer.ancestors(diff, this.selected !== null ? [...wanted, this.selected] : wanted);
    if (this.firstDraw) {
      this.firstDraw = false;
      this.collapseFunctions(diff, after, holders);
    }
    // A box the viewer collapsed opens when the step changes something inside it,
    // and any box opens around an op the person selected elsewhere.
    for (const id of holders) {
      if (this.autoCollapsed.has(id) || (this.centreSelection && this.layout.collapsed.has(id))) {
        this.layout.collapsed.delete(id);
        this.autoCollapsed.delete(id);
      }
    }
    const frames = this.framesOf(step, diff);
    // A change hidden in a collapsed box is shown by that box.
    const visibleTarget = (id: string): string | null => {
      let current: string | null = id;
      let shown: string | null = null;
      while (current !== null) {
        if (frames.has(current) && shown === null) {
          shown = current;
        }
        if (this.layout.collapsed.has(current) && frames.has(current)) {
          shown = current;
        }
        current = diff.nodes.get(current)?.parent ?? null;
      }
      return shown;
    };
    const targets = [...new Set(wanted.map(visibleTarget).filter((id): id is string => id !== null))];
    this.title.textContent = this.describe(step);
    this.dispatchPane?.update(step, after, this.selected, before);
    this.title.title = this.title.textContent;
    // While a key is held the side panes wait for it to be let go: text changing
    // thirty times a second cannot be read, and laying it out costs the frame.
    // Otherwise they follow once the graph is painted, so that the step shows at
    // once and the text a frame later.
    const panes = this.repeating
      ? Promise.resolve()
      : afterPaint(() => {
          if (token !== this.token) {
            return; // a later draw shows its own step
          }
          this.showIR(step, before, after);
          this.irPane.select(this.selected);
          const history = this.selected !== null ? lineage(this.trace.steps, this.selected) : [];
          this.details.render(record, record ? this.trace.passNames[step] : '', after, before, this.selected, history);
          this.source.show(after, this.selected);
        });
    const centre = this.centreSelection && this.selected !== null;
    this.centreSelection = false;
    const drawn = this.graphPane.render(
      diff,
      frames,
      { root, chain: record?.chain ?? [], selected: this.selected },
      this.edgeFilter,
      targets,
      !this.repeating
    );
    this.node.dataset.rendered = String(step);
    await Promise.all([drawn, panes]);
    if (centre && token === this.token) {
      await this.graphPane.centerOn(this.selected!, !this.repeating);
    }
    if (token === this.token && !this.repeating) {
      // Once the page is idle, ready the next step, the one → shows, so that it draws at once.
      await idle();
      if (token === this.token) {
        // `rendered` settles once the next step is ready: in the worker, while the page paints.
        await this.prefetch(step);
      }
    }
  }

  /** Where `step`'s nodes are drawn: laid out ahead of time if nothing changed the layout since. */
  private framesOf(step: number, diff: DiffGraph): Map<string, Frame> {
    const ahead = this.ahead;
    this.ahead = null;
    if (ahead !== null && ahead.step === step && ahead.diff === diff && this.layout.adopt(ahead.layout)) {
      return ahead.frames;
    }
    return this.layout.frames(diff.nodes);
  }

  /** The worker that lays steps out ahead, started on first use (null: none can start here). */
  private aheadThread(): AheadWorker | null {
    if (this.aheadWorker === undefined) {
      this.aheadWorker = AheadWorker.start(this.data);
    }
    return this.aheadWorker?.alive ? this.aheadWorker : null;
  }

  /** `step` built and laid out by the worker with the layout's memory as it is now (null: by the page). */
  private laidOut(step: number): Promise<AheadResult | null> {
    const worker = this.aheadThread();
    if (worker === null) {
      return Promise.resolve(null);
    }
    const pending = this.pending;
    if (pending !== null && pending.step === step && pending.generation === this.layout.generation) {
      return pending.result;
    }
    const result = worker.lay(step, this.layout.memory());
    this.pending = { step, generation: this.layout.generation, result };
    void result.then(() => {
      if (this.pending?.result === result) {
        this.pending = null;
      }
    });
    return result;
  }

  /** Keep what the worker made for a step: its graph, and its frames for `framesOf` to adopt. */
  private takeAhead(laid: AheadResult): DiffGraph {
    // Copies from the worker: what the step shown now already holds keeps its objects.
    const shown = this.model.diffs.cached(this.current);
    if (shown !== undefined) {
      shareUnchanged(laid.diff, shown);
    }
    shareFrames(laid.frames, this.layout.lastFrames);
    const diff = this.model.diffs.set(laid.step, laid.diff);
    this.ahead = { step: laid.step, diff, layout: this.layout.withMemory(laid.memory), frames: laid.frames };
    this.laidAhead += 1;
    return diff;
  }

  /** How many steps the page drew from the worker's graphs (tests and tools read it). */
  get stepsLaidAhead(): number {
    return this.laidAhead;
  }

  /**
   * Build and lay out the step after `step` (the state shown now) ahead of time, if → would show
   * it: in the worker where one runs (settling when its answer is taken), else here.
   */
  private async prefetch(step: number): Promise<void> {
    const next = step + 1;
    if (next >= this.trace.steps.length || this.ahead?.step === next || this.cursor.step !== step) {
      return;
    }
    if (this.timeline.visibleSteps().find(s => s > step) !== next) {
      return;
    }
    if (this.model.diffs.cached(next) === undefined && this.aheadThread() !== null) {
      // Off the page's thread; the page only readies the drawing once the answer comes.
      const token = this.token;
      const laid = await this.laidOut(next);
      if (laid === null || token !== this.token || this.cursor.step !== step || this.model.diffs.cached(next) !== undefined) {
        return;
      }
      const diff = this.takeAhead(laid);
      const record = this.trace.steps[next];
      this.graphPane.prepare(diff, laid.frames, { root: record.root ?? null, chain: record.chain ?? [], selected: this.selected }, this.edgeFilter);
      return;
    }
    let diff = this.model.diffs.cached(next);
    if (diff === undefined) {
      // On a copy: the state shown now stays the cursor's.
      const state = this.cursor.at(step).clone();
      try {
        state.apply(this.trace.steps[next].delta ?? {});
      } catch {
        return; // drawing the step will say what is wrong with it
      }
      diff = this.model.diff(next, this.cursor.at(step), state);
    }
    // And lay it out, on a copy of the layout's memory: → adopts it, anything else drops it.
    const layout = this.layout.fork();
    const frames = layout.frames(diff.nodes);
    this.ahead = { step: next, diff, layout, frames };
    const record = this.trace.steps[next];
    this.graphPane.prepare(diff, frames, { root: record.root ?? null, chain: record.chain ?? [], selected: this.selected }, this.edgeFilter);
  }

  /** The step's IR in the IR pane, diffed against the base the person chose. */
  private showIR(step: number, before: IRState, after: IRState): void {
    const base = this.baseStep(step, this.irPane.base);
    const baseState = base === step - 1 ? before : this.cursor.at(base).clone();
    const shownState = step < 0 ? before : after;
    const afterLines = this.stateLines(step, shownState);
    const baseLines = step < 0 ? afterLines : this.stateLines(base, baseState);
    const lines = diffLines(baseLines, afterLines);
    // Named as the CLI prints each side; a value on both sides shows its name after the step.
    const names = step < 0 ? this.stateNames(step, shownState) : this.stateNames(base, baseState);
    const shown = this.stateNames(step, shownState);
    const merged: PrintedNames = { values: new Map([...names.values, ...shown.values]), blocks: new Map([...names.blocks, ...shown.blocks]) };
    const against = { step: 'the step before', pass: 'the start of the pass', initial: 'the initial IR' }[this.irPane.base];
    this.irPane.render(lines, step < 0 ? 'IR (initial)' : `IR after step ${step}, against ${against}`, merged);
    this.outputs.setShown(null);
    if (base !== step - 1) {
      // `at` moved the cursor; the next step replays from a checkpoint.
      this.cursor.at(step);
    }
  }

  /** Show the compile's text output `index` in the IR pane, until a step is drawn again. */
  showOutput(index: number): void {
    const output = this.outputs.outputs[index];
    if (output === undefined) {
      return;
    }
    // An LLVM pass (and the LLVM IR after the last) is shown against the IR it was given.
    const diff = outputDiff(this.outputs.outputs, index);
    const base = diffBase(this.outputs.outputs, index);
    if (diff !== null && base !== null) {
      this.irPane.render(diff, `${output.stage}, against ${this.outputs.outputs[base].stage}`);
    } else {
      this.irPane.renderText(output.text, `${output.stage}: what the compile made after its MLIR passes`);
    }
    this.outputs.setShown(index);
  }

  /** The step whose IR `step` is compared with. */
  private baseStep(step: number, base: CompareBase): number {
    if (step < 0 || base === 'step') {
      return step - 1;
    }
    if (base === 'initial') {
      return -1;
    }
    const group = this.trace.groups.find(g => g.steps.includes(step));
    return (group?.steps[0] ?? step) - 1;
  }

  private describe(step: number): string {
    const total = this.trace.steps.length;
    if (step < 0) {
      return `initial IR · ${total} steps`;
    }
    const record = this.trace.steps[step];
    const parts = [`step ${step} of ${total - 1}`, record.kind, this.trace.passNames[step], this.trace.label(step)];
    return `${parts.filter(p => p !== '').join(' · ')}   ${stepCounts(record)}`;
  }
}
