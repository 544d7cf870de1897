/**
 * The view of `passviz.widget.TraceWidget`: the trace viewer with its `step`
 * and `selected_op` synced both ways with the Python object, under a run
 * panel that runs the kernel through the widget's custom messages (on the GPU
 * where `gpu_missing` is null).
 */

import { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import type { Message } from '@lumino/messaging';

import { clear, el } from './view/dom';
import { readViewOptions } from './view/options';
import { RunPanel, type PanelReply, type PanelRequest } from './view/runpanel';
import { TraceViewer } from './view/viewer';

export const MODULE_NAME = 'passviz';
export const MODULE_VERSION = '0.1.0';

export class TraceWidgetModel extends DOMWidgetModel {
  defaults(): Backbone.ObjectHash {
    return {
      ...super.defaults(),
      _model_name: 'TraceWidgetModel',
      _model_module: MODULE_NAME,
      _model_module_version: MODULE_VERSION,
      _view_name: 'TraceWidgetView',
      _view_module: MODULE_NAME,
      _view_module_version: MODULE_VERSION,
      trace: {},
      step: -1,
      selected_op: null,
      view: {},
      height: '640px',
      gpu_missing: 'not checked yet'
    };
  }

  static model_name = 'TraceWidgetModel';
  static model_module = MODULE_NAME;
  static model_module_version = MODULE_VERSION;
  static view_name = 'TraceWidgetView';
  static view_module = MODULE_NAME;
  static view_module_version = MODULE_VERSION;
}

export class TraceWidgetView extends DOMWidgetView {
  private viewer: TraceViewer | null = null;
  private panel: RunPanel | null = null;
  /** Where the viewer mounts, below the run panel. */
  private readonly viewerHost = el('div', { className: 'pv-widget-viewer' });

  /** The run panel (a widget has a kernel behind it). */
  get runPanel(): RunPanel | null {
    return this.panel;
  }

  /** The viewer shown now, if the trace could be read. */
  get traceViewer(): TraceViewer | null {
    return this.viewer;
  }

  render(): void {
    this.el.classList.add('pv-host', 'pv-widget');
    this.el.style.height = String(this.model.get('height'));
    this.panel = new RunPanel(
      (request: PanelRequest) => this.send(request),
      () => this.viewer?.step ?? -1,
      // Through the model: Python reads the step, and a remount (new run records) keeps it.
      step => {
        this.model.set('step', step);
        this.touch();
      }
    );
    this.el.append(this.panel.node, this.viewerHost);
    this.listenTo(this.model, 'msg:custom', (reply: PanelReply) => this.panel?.handle(reply));
    this.followGpu();
    this.listenTo(this.model, 'change:gpu_missing', this.followGpu);
    this.mount();
    this.listenTo(this.model, 'change:trace', this.mount);
    this.listenTo(this.model, 'change:view', this.mount);
    this.listenTo(this.model, 'change:step', this.followStep);
    this.listenTo(this.model, 'change:selected_op', this.followSelection);
    this.listenTo(this.model, 'change:height', this.followHeight);
  }

  private mount = (): void => {
    this.viewer?.dispose();
    clear(this.viewerHost);
    this.viewer = TraceViewer.mount(this.viewerHost, this.model.get('trace'), {
      ...readViewOptions({ view: this.model.get('view') }),
      step: Number(this.model.get('step')),
      selected: (this.model.get('selected_op') as string | null) ?? null,
      onStep: step => {
        this.model.set('step', step);
        this.touch();
      },
      onSelect: op => {
        this.model.set('selected_op', op);
        this.touch();
      }
    });
  };

  private followStep = (): void => {
    const step = Number(this.model.get('step'));
    if (this.viewer && this.viewer.step !== step) {
      void this.viewer.setStep(step);
    }
  };

  private followSelection = (): void => {
    const op = (this.model.get('selected_op') as string | null) ?? null;
    if (this.viewer && this.viewer.selectedOp !== op) {
      this.viewer.selectOp(op);
    }
  };

  private followGpu = (): void => {
    this.panel?.setGpu((this.model.get('gpu_missing') as string | null) ?? null);
  };

  private followHeight = (): void => {
    this.el.style.height = String(this.model.get('height'));
    this.viewer?.resize();
  };

  processLuminoMessage(msg: Message): void {
    super.processLuminoMessage(msg);
    if (msg.type === 'resize' || msg.type === 'after-show' || msg.type === 'after-attach') {
      this.viewer?.resize();
    }
  }

  remove(): void {
    this.panel?.dispose();
    this.panel = null;
    this.viewer?.dispose();
    this.viewer = null;
    super.remove();
  }
}
