/**
 * The MIME extension: a renderer for `application/vnd.passviz.trace+json`
 * (what `display(trace)` emits) and, through the same renderer, a document
 * viewer for trace files opened from the file browser: `*.passviz.json`, and
 * `*.passviz.json.gz` (what `passviz trace` writes by default), read as base64
 * and unzipped in the browser.
 */

import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { TraceRenderer } from './host';
import { TRACE_MIME_TYPE } from './schema';

export const FILE_TYPE = 'passviz-trace';
export const GZIP_FILE_TYPE = 'passviz-trace-gzip';

export const rendererFactory: IRenderMime.IRendererFactory = {
  // Everything from a trace is shown as text, so untrusted outputs are safe to render.
  safe: true,
  mimeTypes: [TRACE_MIME_TYPE],
  defaultRank: -20,
  createRenderer: options => new TraceRenderer(options.mimeType)
};

const extension: IRenderMime.IExtension = {
  id: 'passviz:mime',
  description: 'Step-through viewer for passviz traces.',
  rendererFactory,
  // Before the ipywidget view (-10): in JupyterLab the trace shows in this viewer.
  rank: -20,
  dataType: 'string',
  fileTypes: [
    {
      name: FILE_TYPE,
      displayName: 'passviz trace',
      mimeTypes: [TRACE_MIME_TYPE],
      extensions: ['.passviz.json'],
      fileFormat: 'text'
    },
    {
      name: GZIP_FILE_TYPE,
      displayName: 'passviz trace (gzip)',
      mimeTypes: [TRACE_MIME_TYPE],
      extensions: ['.passviz.json.gz'],
      fileFormat: 'base64'
    }
  ],
  documentWidgetFactoryOptions: [
    {
      name: 'passviz trace viewer',
      label: 'passviz trace viewer',
      primaryFileType: FILE_TYPE,
      fileTypes: [FILE_TYPE],
      defaultFor: [FILE_TYPE]
    },
    {
      name: 'passviz trace viewer (gzip)',
      label: 'passviz trace viewer',
      // The file's bytes, as base64: the renderer unzips them.
      modelName: 'base64',
      primaryFileType: GZIP_FILE_TYPE,
      fileTypes: [GZIP_FILE_TYPE],
      defaultFor: [GZIP_FILE_TYPE]
    }
  ]
};

export default extension;
