/**
 * The JupyterLab plugin that registers the `passviz` ipywidget module, so that
 * `passviz.widget.TraceWidget` shows the trace viewer.
 */

import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';

import { MODULE_NAME, MODULE_VERSION } from './widget';

const widgetPlugin: JupyterFrontEndPlugin<void> = {
  id: 'passviz:widget',
  description: 'The passviz TraceWidget view.',
  requires: [IJupyterWidgetRegistry],
  autoStart: true,
  activate: (_app: JupyterFrontEnd, registry: IJupyterWidgetRegistry): void => {
    registry.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      // Loaded on first use, so notebooks without the widget never pay for it.
      exports: async () => {
        const module = await import('./widget');
        return { TraceWidgetModel: module.TraceWidgetModel, TraceWidgetView: module.TraceWidgetView };
      }
    });
  }
};

export default [widgetPlugin];
